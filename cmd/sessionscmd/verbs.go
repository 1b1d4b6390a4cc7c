package sessionscmd

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/lazyre"
	"github.com/agentproto/agentproto/plugins/host"
	"github.com/agentproto/agentproto/profiles"
	"github.com/agentproto/agentproto/sessions"
	"github.com/agentproto/agentproto/worktree"
)

func newCmdStart(f *cmdutil.Factory) *cobra.Command {
	var adapter, model, slug, base, dir, prompt, promptFile, label, profile string
	var asJSON, noPing bool
	var userOptions map[string]string
	cmd := &cobra.Command{
		Use:   "start (--adapter NAME [--model M] | --profile NAME) (--worktree SLUG [--base REV] | --dir D) (--prompt TEXT | --prompt-file F) [--option K=V...] [--label L] [--no-ping] [--json]",
		Short: "Start a session and print its id",
		Long: `Start a session and print its id. The spawn protocol: the session starts idle,
answers a liveness ping ("Reply with exactly READY"), and only then receives
the prompt; a session that fails the ping never sees it (--no-ping skips the
check). A profile names adapter, model and auth; the key variable it names is
passed to the adapter from your environment and never stored. Adapter options
from a committed agentproto.toml run only once trusted on this machine
(plugin trust NAME, profile trust NAME); --option K=V options are yours and
win over them. --worktree SLUG makes the worktree first when it does not
exist, as worktree new does (from --base or the default base; its setup
hooks run, once trusted).`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, _, err := f.Config()
			if err != nil {
				return err
			}
			var allow []string
			if profile != "" {
				if adapter != "" {
					return fault.Invalidf("--profile names the adapter; do not give --adapter too")
				}
				p, err := profiles.Resolve(cfg, profile)
				if err != nil {
					return err
				}
				adapter = p.Adapter
				if model == "" {
					model = p.Model
				}
				if p.KeyEnv != "" {
					if os.Getenv(p.KeyEnv) == "" {
						return fault.Refusedf("profile %s needs $%s, which is not set", profile, p.KeyEnv)
					}
					allow = append(allow, p.KeyEnv)
				}
			}
			if adapter == "" {
				return fault.Invalidf("--adapter or --profile is required")
			}
			if (slug == "") == (dir == "") {
				return fault.Invalidf("give exactly one of --worktree and --dir")
			}
			if base != "" && slug == "" {
				return fault.Invalidf("--base is the base of a new --worktree; it needs --worktree")
			}
			text, err := readText(prompt, promptFile, "prompt")
			if err != nil {
				return err
			}
			if strings.TrimSpace(text) == "" {
				return fault.Invalidf("a session starts with a prompt: --prompt or --prompt-file")
			}
			repo, err := f.Repo()
			if err != nil {
				return err
			}
			found, err := host.Discover(adapter, cfg.Plugins, repo.WorkTree)
			if err != nil {
				return err
			}
			if slug != "" {
				// Made when missing: the same sequence as worktree new.
				mg := &worktree.Manager{Repo: repo, Config: cfg.Worktree, Ledger: f.Ledger, Out: f.IO.ErrOut, By: "sessions start"}
				m, _, err := mg.Ensure(worktree.CreateOptions{Slug: slug, Base: base})
				if err != nil {
					return err
				}
				dir = m.Path
			}
			abs, err := absDir(dir)
			if err != nil {
				return err
			}
			launch := profiles.Launch{Adapter: adapter, Profile: profile, User: userOptions}
			trustDir := "" // a worktree holds the repository's files
			if slug == "" && abs != repo.WorkTree {
				trustDir = dir
			}
			if err := launch.RequireTrust(cfg, repo.WorkTree, repo.CommonDir, abs, trustDir); err != nil {
				return err
			}
			c, err := client(f)
			if err != nil {
				return err
			}
			resp, err := c.Call(&sessions.Request{Op: "start", Start: &sessions.StartArgs{
				Adapter: adapter, Path: found.Path, SHA256: found.SHA256, Model: model, Dir: abs, Worktree: slug,
				Prompt: text, Label: label, Env: os.Environ(), Options: launch.Options(cfg),
				Ping: !noPing, AllowEnv: allow, Profile: profile}})
			if err != nil {
				// A session that failed while starting still exists: --json
				// gives its record (state, failure, stderr tail), and the
				// error names it either way.
				if resp != nil && resp.Session != nil && asJSON {
					cmdutil.ExportJSON(cmd, f.IO.Out, resp.Session)
				}
				return err
			}
			if asJSON {
				return cmdutil.ExportJSON(cmd, f.IO.Out, resp.Session)
			}
			fmt.Fprintln(f.IO.Out, resp.Session.ID)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&adapter, "adapter", "", "adapter name")
	fl.StringVar(&model, "model", "", "model id")
	fl.StringVar(&slug, "worktree", "", "run in this agentproto worktree, made first when missing (as worktree new)")
	fl.StringVar(&base, "base", "", "base revision of a worktree made by --worktree (default: [worktree] base, origin/HEAD, HEAD)")
	fl.StringVar(&dir, "dir", "", "run in this directory")
	fl.StringVar(&prompt, "prompt", "", "first prompt")
	fl.StringVar(&promptFile, "prompt-file", "", "read the first prompt from a file")
	fl.StringVar(&label, "label", "", "a label for people")
	cmdutil.AddJSONFlags(cmd, &asJSON, "print the session as JSON")
	fl.StringVar(&profile, "profile", "", "executor profile ([profiles.NAME])")
	fl.BoolVar(&noPing, "no-ping", false, "skip the liveness ping")
	fl.StringToStringVar(&userOptions, "option", nil, "an adapter option K=V of your own, over the configured ones (repeatable)")
	return cmd
}

func newCmdLs(f *cmdutil.Factory) *cobra.Command {
	var asJSON, all bool
	cmd := &cobra.Command{
		Use:   "ls [--all] [--json]",
		Short: "List sessions: id, label, adapter, model, dir, state, turns, last activity, pid",
		Args:  cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := store(f)
			if err != nil {
				return err
			}
			recs, err := st.All()
			if err != nil {
				return err
			}
			rows := []*sessions.Record{}
			// Without a daemon nothing is live: a record it left running or
			// settled is an orphan until the next daemon recovers it.
			c, err := client(f)
			if err != nil {
				return err
			}
			daemon, err := c.Probe()
			if err != nil {
				// The records are on disk and can be listed; whether they
				// are live cannot be asked.
				fmt.Fprintln(f.IO.ErrOut, "warning:", err)
			}
			for _, r := range recs {
				if !daemon && err == nil && !sessions.Terminal(r.State) {
					r.Failure = "the sessions daemon is not running (it was " + r.State + "); the next sessions command recovers it"
					r.State = "orphaned"
				}
				if all || r.State != sessions.StateCleaned {
					rows = append(rows, r)
				}
			}
			if asJSON {
				return cmdutil.ExportJSON(cmd, f.IO.Out, rows)
			}
			for _, r := range rows {
				label := r.Label
				if label == "" {
					label = "-"
				}
				fmt.Fprintf(f.IO.Out, "%s  %-12s %-9s %-10s %-12s turns=%-3d %s  pid=%d  %s\n", r.ID, label, r.State, r.Adapter,
					orDash(r.Model), r.Turns, r.LastActivity.Local().Format("15:04:05"), r.Pid, r.Dir)
				for _, w := range r.Warnings {
					fmt.Fprintf(f.IO.Out, "    warning: %s\n", w)
				}
				if r.Failure != "" {
					fmt.Fprintf(f.IO.Out, "    %s\n", r.Failure)
				}
			}
			return nil
		},
	}
	cmdutil.AddJSONFlags(cmd, &asJSON, "print as JSON")
	cmd.Flags().BoolVar(&all, "all", false, "include cleaned sessions")
	return cmd
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func newCmdWait(f *cmdutil.Factory) *cobra.Command {
	var until, timeout string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "wait ID... [--until turn-end|exit] [--timeout 40m] [--json]",
		Short: "Block until every named session reaches the state; exit 4 on timeout",
		Args:  cmdutil.MinArgs(1, "one session id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, id := range args {
				if err := sessions.ValidateID(id); err != nil {
					return err
				}
			}
			if d, err := time.ParseDuration(timeout); err != nil || d <= 0 {
				return fault.Invalidf("--timeout %q needs a unit, such as 40m or 90s", timeout)
			}
			c, err := client(f)
			if err != nil {
				return err
			}
			resp, err := c.Call(&sessions.Request{Op: "wait", IDs: args, Until: until, Timeout: timeout})
			if err != nil {
				return err
			}
			st, _ := store(f)
			records := []*sessions.Record{}
			for _, id := range args {
				if r, err := st.Load(id); err == nil {
					records = append(records, r)
					if !asJSON {
						printRecord(f, r)
					}
				}
			}
			if asJSON {
				pending := append([]string{}, resp.Pending...)
				if err := cmdutil.ExportJSON(cmd, f.IO.Out, map[string]any{"sessions": records, "pending": pending}); err != nil {
					return err
				}
			}
			if len(resp.Pending) > 0 {
				return fault.Timeoutf("timed out after %s; still running: %s", timeout, strings.Join(resp.Pending, " "))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&until, "until", "turn-end", "turn-end or exit")
	cmd.Flags().StringVar(&timeout, "timeout", "40m", "how long to wait, with a unit")
	cmdutil.AddJSONFlags(cmd, &asJSON, "print the sessions and what is still pending as JSON")
	return cmd
}

// escapes matches terminal control sequences (CSI, OSC) and stray controls.
var escapes = lazyre.New(`\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[@-Z\\-_]|[\x00-\x08\x0b-\x1f\x7f]`)

func newCmdOutput(f *cmdutil.Factory) *cobra.Command {
	var last int
	var follow, clean, asJSON bool
	cmd := &cobra.Command{
		Use:   "output ID [--last N] [--follow] [--clean] [--json]",
		Short: "Print a session's output (the last N lines; --follow until it ends)",
		Args:  cmdutil.ExactArgs(1, "one session id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := store(f)
			if err != nil {
				return err
			}
			rec, err := st.Load(args[0])
			if err != nil {
				return err
			}
			if last < 0 {
				return fault.Invalidf("--last must be 0 (all) or more")
			}
			file, err := os.Open(st.OutputPath(rec.ID))
			if err != nil {
				return err
			}
			defer file.Close()
			b, err := io.ReadAll(file)
			if err != nil {
				return err
			}
			w := bufio.NewWriter(f.IO.Out)
			defer w.Flush()
			lines := &lineStream{session: rec.ID, write: func(v any) error { return cmdutil.ExportJSON(cmd, w, v) }}
			if asJSON {
				defer lines.flush()
			}
			emit := func(p []byte) {
				if clean {
					p = escapes.ReplaceAll(p, nil)
				}
				if asJSON {
					lines.add(p)
					return
				}
				w.Write(p)
			}
			if last > 0 {
				lines := bytes.SplitAfter(b, []byte("\n"))
				if n := len(lines); n > 0 && len(lines[n-1]) == 0 {
					lines = lines[:n-1]
				}
				if len(lines) > last {
					lines = lines[len(lines)-last:]
				}
				b = bytes.Join(lines, nil)
			}
			emit(b)
			if !follow {
				return nil
			}
			for {
				w.Flush()
				r, err := st.Load(rec.ID)
				more, _ := io.ReadAll(file)
				emit(more)
				if err != nil || (sessions.Terminal(r.State) && len(more) == 0) {
					return nil
				}
				time.Sleep(100 * time.Millisecond)
			}
		},
	}
	cmd.Flags().IntVar(&last, "last", 0, "only the last N lines")
	cmd.Flags().BoolVar(&follow, "follow", false, "keep printing until the session ends")
	cmd.Flags().BoolVar(&clean, "clean", false, "strip terminal escapes and control characters")
	cmdutil.AddJSONFlags(cmd, &asJSON, `one JSON document per output line: {"session","line"}`)
	return cmd
}

func newCmdPrompt(f *cmdutil.Factory) *cobra.Command {
	var text, file string
	var interrupt bool
	cmd := &cobra.Command{
		Use:   "prompt ID (--text T | --file F) [--interrupt]",
		Short: "Send a session another turn, or interrupt its current one",
		Args:  cmdutil.ExactArgs(1, "one session id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := sessions.ValidateID(args[0]); err != nil {
				return err
			}
			t, err := readText(text, file, "text")
			if err != nil {
				return err
			}
			if t == "" && !interrupt {
				return fault.Invalidf("give --text or --file (or --interrupt alone)")
			}
			c, err := client(f)
			if err != nil {
				return err
			}
			if _, err := c.Call(&sessions.Request{Op: "prompt", ID: args[0], Text: t, Interrupt: interrupt}); err != nil {
				return err
			}
			fmt.Fprintf(f.IO.Out, "sent to %s\n", args[0])
			return nil
		},
	}
	cmd.Flags().StringVar(&text, "text", "", "prompt text")
	cmd.Flags().StringVar(&file, "file", "", "read the prompt from a file")
	cmd.Flags().BoolVar(&interrupt, "interrupt", false, "interrupt the current turn first")
	return cmd
}

func newCmdKill(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "kill ID",
		Short: "End a session and every process it started",
		Args:  cmdutil.ExactArgs(1, "one session id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := sessions.ValidateID(args[0]); err != nil {
				return err
			}
			c, err := client(f)
			if err != nil {
				return err
			}
			resp, err := c.Call(&sessions.Request{Op: "kill", ID: args[0]})
			if err != nil {
				return err
			}
			printRecord(f, resp.Session)
			return nil
		},
	}
}

func newCmdGC(f *cmdutil.Factory) *cobra.Command {
	var apply, asJSON bool
	cmd := &cobra.Command{
		Use:   "gc [--apply] [--json]",
		Short: "Clean settled and dead sessions; report idle running ones as orphans",
		Args:  cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := client(f)
			if err != nil {
				return err
			}
			running, err := c.Probe()
			if err != nil {
				return err
			}
			if !running {
				fmt.Fprintln(f.IO.Out, "no sessions daemon runs; nothing is live")
				return nil
			}
			resp, err := c.Call(&sessions.Request{Op: "gc", Apply: apply})
			if err != nil {
				return err
			}
			if asJSON {
				return cmdutil.ExportJSON(cmd, f.IO.Out, resp.Records)
			}
			for _, r := range resp.Records {
				what := "keep"
				switch {
				case r.State == sessions.StateCleaned:
					what = "cleaned"
				case r.State == sessions.StateSettled || sessions.Terminal(r.State):
					what = "would clean"
				case time.Since(r.LastActivity) > 15*time.Minute:
					what = "orphan? (running, idle " + time.Since(r.LastActivity).Round(time.Minute).String() + ")"
				}
				fmt.Fprintf(f.IO.Out, "%-28s %s %s %s\n", what, r.ID, r.State, r.Dir)
			}
			if !apply {
				fmt.Fprintln(f.IO.Out, "(dry run: use --apply)")
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&apply, "apply", false, "clean them")
	cmdutil.AddJSONFlags(cmd, &asJSON, "print as JSON")
	return cmd
}
