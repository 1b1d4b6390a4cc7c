// Package policycmd wires `policy attach|ls|cancel|wait`, policies that
// live in the sessions daemon and fire without anyone polling.
package policycmd

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/internal/fault"
)

// NewCmdPolicy returns the `policy` command.
func NewCmdPolicy(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "policy <command>",
		Short: "Attach policies to sessions: actions the daemon runs on turn-end or idleness",
		Long: `Policies live in the sessions daemon and fire without the supervisor polling.
Triggers: turn-end (each time a turn ends), idle:DURATION (no activity for that
long). Actions, run in order, stopping at the first that fails: verify and
checkpoint (the pipeline's, for sessions dispatched as PROJECT/WPn), kill,
notify ([policies] notify), prompt-file:PATH. Every firing is a policy_fired
ledger event with its results.`,
	}
	var on, do, plan string
	var repeat bool
	attach := &cobra.Command{
		Use:   "attach SESSION... --on turn-end|idle:15m --do ACTIONS [--plan PROJECT]",
		Short: "Attach a policy to sessions",
		Args:  cmdutil.MinArgs(1, "one session id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			pol, err := f.App().AttachPolicy(context.Background(), app.PolicyOptions{Sessions: args, On: on, Do: do, Plan: plan, Repeat: repeat})
			if err != nil {
				return err
			}
			fmt.Fprintln(f.IO.Out, pol.ID)
			return nil
		},
	}
	attach.Flags().StringVar(&on, "on", "turn-end", "turn-end or idle:DURATION")
	attach.Flags().StringVar(&do, "do", "", "actions, comma-separated")
	attach.Flags().StringVar(&plan, "plan", "", "plan of verify/checkpoint (default: from the session label PROJECT/WPn)")
	attach.Flags().BoolVar(&repeat, "repeat", false, "a policy that prompts (prompt-file) fires on every turn end, not once a session")

	var asJSON bool
	ls := &cobra.Command{
		Use: "ls [--json]", Short: "List policies and what they did", Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			policies, running, err := f.App().Policies(cmd.Context())
			switch {
			case err != nil:
				return err
			case !running && asJSON:
				fmt.Fprintln(f.IO.Out, "[]")
				return nil
			case asJSON:
				return cmdutil.ExportJSON(cmd, f.IO.Out, policies)
			}
			for _, p := range policies {
				state := "active"
				if p.Canceled {
					state = "canceled"
				}
				fmt.Fprintf(f.IO.Out, "%s  %-8s on %-12s do %-28s fired %d  %s\n", p.ID, state, p.On, strings.Join(p.Do, ","), p.Fired, strings.Join(p.Sessions, " "))
				for _, r := range p.Last {
					fmt.Fprintf(f.IO.Out, "    %s %s ok=%v %s\n", r.Session, r.Action, r.OK, r.Detail)
				}
			}
			return nil
		},
	}
	cmdutil.AddJSONFlags(ls, &asJSON, "print as JSON")
	cancel := &cobra.Command{
		Use: "cancel ID", Short: "Cancel a policy", Args: cmdutil.ExactArgs(1, "one policy id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.App().CancelPolicy(cmd.Context(), args[0]); err != nil {
				return err
			}
			fmt.Fprintf(f.IO.Out, "canceled %s\n", args[0])
			return nil
		},
	}
	var timeout string
	var waitJSON bool
	wait := &cobra.Command{
		Use: "wait ID... [--timeout 40m] [--json]", Short: "Block until the policies fired; exit 4 on timeout",
		Args: cmdutil.MinArgs(1, "one policy id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := time.ParseDuration(timeout)
			if err != nil || d <= 0 {
				return fault.Invalidf("--timeout %q is not a duration with a unit (such as 40m)", timeout)
			}
			pending, err := f.App().WaitPolicies(cmd.Context(), args, d)
			if err != nil {
				return err
			}
			if waitJSON {
				doc := map[string]any{"ids": args, "fired": len(pending) == 0, "pending": append([]string{}, pending...)}
				if err := cmdutil.ExportJSON(cmd, f.IO.Out, doc); err != nil {
					return err
				}
			}
			if len(pending) > 0 {
				return fault.Timeoutf("timed out after %s; not fired yet: %s", timeout, strings.Join(pending, " "))
			}
			if !waitJSON {
				fmt.Fprintln(f.IO.Out, "fired")
			}
			return nil
		},
	}
	wait.Flags().StringVar(&timeout, "timeout", "40m", "how long to wait, with a unit")
	cmdutil.AddJSONFlags(wait, &waitJSON, "print the outcome as JSON")
	cmd.AddCommand(attach, ls, cancel, wait, newCmdTrust(f))
	return cmd
}
