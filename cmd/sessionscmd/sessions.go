// Package sessionscmd wires `serve` (the sessions daemon) and the `sessions`
// verbs: start, ls, wait, output, prompt, kill, gc.
package sessionscmd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/sessions"
)

// NewCmdServe returns the daemon command, normally started by the CLI.
func NewCmdServe(f *cmdutil.Factory) *cobra.Command {
	var guard bool
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the sessions daemon of this repository (started automatically)",
		Long: `The daemon owns the adapter plugins of running sessions, so sessions outlive
the command that started them. The sessions commands start it on demand; it
stops by itself after [sessions] idle_exit with no live session and no client.`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if guard {
				return sessions.Guard(os.Stdin, os.Stderr)
			}
			repo, err := f.Repo()
			if err != nil {
				return err
			}
			cfg, _, err := f.Config()
			if err != nil {
				return err
			}
			idle := cfg.Sessions.IdleExit.Duration
			if v := os.Getenv("AGENTPROTO_DAEMON_IDLE"); v != "" {
				if d, err := time.ParseDuration(v); err == nil {
					idle = d
				}
			}
			err = sessions.NewDaemon(repo, idle, os.Stderr).Run()
			if errors.Is(err, sessions.ErrRunning) {
				return nil
			}
			return err
		},
	}
	// The daemon starts its guard this way: it reads the daemon's process
	// groups on stdin and kills those left open when the daemon is gone.
	cmd.Flags().BoolVar(&guard, "guard", false, "")
	cmd.Flags().MarkHidden("guard")
	return cmd
}

// NewCmdSessions returns the `sessions` command.
func NewCmdSessions(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sessions <command>",
		Short: "Start executor sessions and steer them from separate commands",
		Long: `A session is one agent run by an adapter plugin in a directory or worktree.
Sessions outlive the command that started them (a daemon owns them), so a
supervisor starts several, waits for them, reads their output, prompts or
interrupts them, and kills them, minutes apart. Lifecycle transitions
(launched, running, settled, exited, failed, cleaned) are ledger events;
raw output stays local under the common git dir.`,
	}
	cmd.AddCommand(newCmdStart(f), newCmdLs(f), newCmdWait(f), newCmdOutput(f),
		newCmdPrompt(f), newCmdKill(f), newCmdGC(f), newCmdMonitor(f))
	return cmd
}

func client(f *cmdutil.Factory) (*sessions.Client, error) { return f.Sessions() }

func store(f *cmdutil.Factory) (sessions.Store, error) {
	repo, err := f.Repo()
	if err != nil {
		return sessions.Store{}, err
	}
	return sessions.NewStore(repo.CommonDir), nil
}

// readText reads --text/--prompt or the file given instead.
func readText(text, file, what string) (string, error) {
	if file != "" {
		if text != "" {
			return "", fault.Invalidf("--%s and --%s-file cannot be used together", what, what)
		}
		return sessions.ReadPromptFile(file)
	}
	return text, nil
}

func absDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(abs)
	if err != nil || !fi.IsDir() {
		return "", fault.Invalidf("--dir %s is not a directory", dir)
	}
	return abs, nil
}

func printRecord(f *cmdutil.Factory, r *sessions.Record) {
	fmt.Fprintf(f.IO.Out, "%s  %-8s %-10s turns=%d  %s\n", r.ID, r.State, r.Adapter, r.Turns, r.Dir)
}

func newCmdMonitor(f *cmdutil.Factory) *cobra.Command {
	var dur string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "monitor ID... [--for 45s] [--json]",
		Short: "Return as soon as any named session changes state (or the time passes); one line per session",
		Long: `For a supervisor with a small context: instead of polling, block until one of the
named sessions changes state or turn, or --for passes, then print one line per
session: id, state, turns, last activity, warnings count.`,
		Args: cmdutil.MinArgs(1, "one session id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := client(f)
			if err != nil {
				return err
			}
			resp, err := c.Call(&sessions.Request{Op: "monitor", IDs: args, Timeout: dur})
			if err != nil {
				return err
			}
			if asJSON {
				return cmdutil.ExportJSON(cmd, f.IO.Out, map[string]any{"sessions": append([]*sessions.Record{}, resp.Records...)})
			}
			for _, r := range resp.Records {
				fmt.Fprintf(f.IO.Out, "%s %s turns=%d last=%s warnings=%d\n", r.ID, r.State, r.Turns, r.LastActivity.Local().Format("15:04:05"), len(r.Warnings))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dur, "for", "45s", "the longest to wait, with a unit")
	cmdutil.AddJSONFlags(cmd, &asJSON, "print the sessions as JSON")
	return cmd
}
