// Package sessionscmd wires `serve` (the sessions daemon) and the `sessions`
// verbs: start, ls, wait, output, prompt, kill, gc, monitor, stop. Each verb has
// an Options struct (dependencies, then flag values) and a run function;
// tests pass a runF to check the flags alone.
package sessionscmd

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/sessions"
)

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
	cmd.AddCommand(newCmdStart(f, nil), newCmdLs(f, nil), newCmdWait(f, nil), newCmdOutput(f, nil),
		newCmdPrompt(f, nil), newCmdKill(f, nil), newCmdGC(f, nil), newCmdMonitor(f, nil), newCmdStop(f, nil))
	return cmd
}

// storeOf is the session store of the factory's repository.
func storeOf(f *cmdutil.Factory) func() (sessions.View, error) {
	return func() (sessions.View, error) {
		repo, err := f.Repo()
		if err != nil {
			return sessions.View{}, err
		}
		return sessions.OpenView(repo.CommonDir), nil
	}
}

// validIDs checks session ids before anything is asked of the daemon.
func validIDs(ids []string) error {
	for _, id := range ids {
		if err := sessions.ValidateID(id); err != nil {
			return err
		}
	}
	return nil
}

// duration parses a duration flag, which needs a unit.
func duration(flag, s, example string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fault.Invalidf("--%s %q needs a unit, such as %s", flag, s, example)
	}
	return d, nil
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

func printRecord(w io.Writer, r *sessions.Record) {
	fmt.Fprintf(w, "%s  %-8s %-10s turns=%d  %s\n", r.ID, r.State, r.Adapter, r.Turns, r.Dir)
}
