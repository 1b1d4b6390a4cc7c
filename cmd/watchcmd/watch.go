// Package watchcmd is `git agentproto watch`, the live view of a run.
package watchcmd

import (
	"context"
	"fmt"
	"os"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/pipeline"
	"github.com/agentproto/agentproto/plans"
	"github.com/agentproto/agentproto/sessions"
	"github.com/agentproto/agentproto/watch"
)

// NewCmdWatch builds the watch command.
func NewCmdWatch(f *cmdutil.Factory) *cobra.Command {
	var goal string
	var once, asJSON bool
	cmd := &cobra.Command{
		Use:   "watch [PROJECT] [--goal G] [--once] [--json]",
		Short: "A live view of the run: work packages, sessions, policies, peers and a session's output",
		Long: `Show the plan's work packages (state, verify verdict, checkpoint), every session
of the daemon (state, turns, last activity, faults and warnings), the policies
attached, the peers and claims of --goal, and the selected session's clean
output. The view redraws when the ledger or a session changes.

Keys: tab switches between work packages and sessions, up/down (j/k) select,
v verifies the selected work package, p prompts the selected session, i
interrupts its turn and x kills it (both ask first), q quits.

Without a terminal, --once prints one snapshot (--json as a document).`,
		Args: cmdutil.MaxArgs(1, "at most one plan name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			src, w, err := sources(f, args, goal)
			if err != nil {
				return err
			}
			if once || asJSON {
				snap := watch.Take(src)
				if asJSON {
					return cmdutil.ExportJSON(cmd, f.IO.Out, snap)
				}
				fmt.Fprint(f.IO.Out, watch.Once(snap, 120))
				return nil
			}
			if !f.IO.IsStdoutTTY() {
				return fault.Invalidf("watch needs a terminal; use --once (or --json) for one snapshot")
			}
			acts := &actions{f: f, src: src}
			// Colour only on a terminal (it is one here) and never with
			// NO_COLOR, whatever its value.
			_, noColor := os.LookupEnv("NO_COLOR")
			m := watch.New(src, w, acts, !noColor)
			_, err = tea.NewProgram(m).Run()
			return err
		},
	}
	cmd.Flags().StringVar(&goal, "goal", "", "also show the peers and claims of this goal")
	cmd.Flags().BoolVar(&once, "once", false, "print one snapshot and exit")
	cmdutil.AddJSONFlags(cmd, &asJSON, "print one snapshot as JSON and exit")
	return cmd
}

func sources(f *cmdutil.Factory, args []string, goal string) (watch.Sources, watch.Watched, error) {
	repo, err := f.Repo()
	if err != nil {
		return watch.Sources{}, watch.Watched{}, err
	}
	l, err := f.ReadLedger()
	if err != nil {
		return watch.Sources{}, watch.Watched{}, err
	}
	st := sessions.OpenView(repo.CommonDir)
	src := watch.Sources{Ledger: l, Goal: goal, Store: &st, Mu: &sync.Mutex{}}
	if len(args) == 1 {
		if src.Project, err = plans.Load(repo.WorkTree, args[0]); err != nil {
			return src, watch.Watched{}, err
		}
	}
	if c, err := f.Sessions(); err == nil {
		src.Client = c
	}
	return src, watch.Watched{CommonDir: repo.CommonDir, Sessions: st.Dir}, nil
}

// actions are the view's keys, done with the verbs' own library calls.
type actions struct {
	f   *cmdutil.Factory
	src watch.Sources
}

func (a *actions) client() (*sessions.Client, error) { return a.f.Sessions() }

func (a *actions) Prompt(id, text string) error {
	c, err := a.client()
	if err != nil {
		return err
	}
	return c.Prompt(context.Background(), id, text, false)
}

func (a *actions) Interrupt(id string) error {
	c, err := a.client()
	if err != nil {
		return err
	}
	return c.Prompt(context.Background(), id, "", true)
}

func (a *actions) Kill(id string) error {
	c, err := a.client()
	if err != nil {
		return err
	}
	_, err = c.Kill(context.Background(), id)
	return err
}

func (a *actions) Verify(wp string) (string, error) {
	if a.src.Project == nil {
		return "", fault.Invalidf("watch was started without a plan: no work package to verify")
	}
	repo, err := a.f.Repo()
	if err != nil {
		return "", err
	}
	cfg, _, err := a.f.Config()
	if err != nil {
		return "", err
	}
	// The view reads the ledger from its own goroutine: one at a time.
	a.src.Mu.Lock()
	defer a.src.Mu.Unlock()
	h, err := plans.ReadHistory(a.src.Ledger, a.src.Project.Name)
	if err != nil {
		return "", err
	}
	e := &pipeline.Env{Repo: repo, Ledger: a.src.Ledger, Project: a.src.Project, History: h}
	v, err := e.Verify(wp, cfg.Dispatch.GateTimeout.Duration)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s %s: %s (%d changed, %d outside, gate exit %d)", a.src.Project.Name, wp, v.Verdict, len(v.Changed), len(v.OutOfScope), v.Gate.ExitCode), nil
}
