// Package peercmd wires the peer supervisor protocol: peer, goal, todo,
// evidence and supervisor commands.
package peercmd

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/jsondoc"
	"github.com/agentproto/agentproto/launch"
	"github.com/agentproto/agentproto/peers"
	"github.com/agentproto/agentproto/plugins/host"
)

// Commands returns the protocol's commands for the root.
func Commands(f *cmdutil.Factory) []*cobra.Command {
	return []*cobra.Command{newCmdPeer(f), newCmdGoal(f), newCmdTodo(f), newCmdEvidence(f), newCmdSupervisor(f)}
}

func service(f *cmdutil.Factory) (*peers.Service, error) {
	return f.App().Peers(context.Background())
}

// wrote prints what a write did: with --json the record, with "recorded"
// false when the same record was there already; else one sentence.
func wrote(cmd *cobra.Command, f *cmdutil.Factory, asJSON bool, rec any, written bool, did, same string) error {
	if asJSON {
		doc, err := jsondoc.With(rec, "recorded", written)
		if err != nil {
			return err
		}
		return cmdutil.ExportJSON(cmd, f.IO.Out, doc)
	}
	if !written {
		did = same
	}
	_, err := fmt.Fprintln(f.IO.Out, did)
	return err
}

func newCmdPeer(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "peer <command>", Short: "Register peer agents, report their status, guard their quota"}
	var adapter string
	var caps []string
	var quota int
	var session string
	var contract contractFlags
	var asJSON bool
	register := &cobra.Command{
		Use:   "register AGENT-ID --adapter NAME [--capability C]... [--quota-turns N] [--session ID] [--address-via HOW]... [--addressed-by WHO]... [--json]",
		Short: "Register a peer agent (capabilities default to what its adapter declares)",
		Args:  cmdutil.ExactArgs(1, "one agent id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := service(f)
			if err != nil {
				return err
			}
			if adapter == "" {
				return fault.Invalidf("--adapter is required")
			}
			if len(caps) == 0 {
				if caps, err = describeCaps(f, adapter); err != nil {
					return err
				}
			}
			written, err := s.Register(peers.Peer{Agent: args[0], Adapter: adapter, Capabilities: caps, QuotaTurns: quota, Contract: contract.contract()})
			if err != nil {
				return err
			}
			if session != "" {
				if _, err := s.AttachSession(args[0], session); err != nil {
					return err
				}
			}
			p, err := s.Peer(args[0])
			if err != nil {
				return err
			}
			return wrote(cmd, f, asJSON, p, written, "registered "+args[0], args[0]+" is already registered with the same details")
		},
	}
	cmdutil.AddJSONFlags(register, &asJSON, "print the peer as the ledger now has it as JSON")
	register.Flags().StringVar(&adapter, "adapter", "", "adapter name")
	register.Flags().StringArrayVar(&caps, "capability", nil, "a capability (repeatable; default: the adapter's own)")
	register.Flags().IntVar(&quota, "quota-turns", 0, "turns the peer may spend (0: no limit)")
	register.Flags().StringVar(&session, "session", "", "attach this running session")
	contract.add(register)

	attach := &cobra.Command{
		Use:   "attach AGENT-ID --session ID [--json]",
		Short: "Attach a running session to a peer",
		Args:  cmdutil.ExactArgs(1, "one agent id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := service(f)
			if err != nil {
				return err
			}
			written, err := s.AttachSession(args[0], session)
			if err != nil {
				return err
			}
			p, err := s.Peer(args[0])
			if err != nil {
				return err
			}
			return wrote(cmd, f, asJSON, p, written, "attached "+session+" to "+args[0], session+" is already attached to "+args[0])
		},
	}
	attach.Flags().StringVar(&session, "session", "", "session id")
	cmdutil.AddJSONFlags(attach, &asJSON, "print the peer as the ledger now has it as JSON")

	ls := &cobra.Command{
		Use:   "ls [--json]",
		Short: "List registered peers",
		Args:  cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := service(f)
			if err != nil {
				return err
			}
			st, err := peers.Read(s.Ledger)
			if err != nil {
				return err
			}
			var rows []*peers.Peer
			for _, p := range st.Peers {
				rows = append(rows, p)
			}
			sortPeers(rows)
			if asJSON {
				if rows == nil {
					rows = []*peers.Peer{}
				}
				return cmdutil.ExportJSON(cmd, f.IO.Out, rows)
			}
			for _, p := range rows {
				fmt.Fprintf(f.IO.Out, "%-16s %-12s quota=%d  %s\n", p.Agent, p.Adapter, p.QuotaTurns, strings.Join(p.Capabilities, ","))
			}
			return nil
		},
	}
	cmdutil.AddJSONFlags(ls, &asJSON, "print as JSON")

	var goal, state, next, workspace, handoff string
	status := &cobra.Command{
		Use:   "status AGENT-ID --goal G --state STATE --next-action TEXT [--workspace SLUG] [--handoff REF] [--json]",
		Short: "Record a peer's state and next action on a goal",
		Args:  cmdutil.ExactArgs(1, "one agent id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := service(f)
			if err != nil {
				return err
			}
			st := peers.Status{Goal: goal, Agent: args[0], State: state, NextAction: next, Workspace: workspace, Handoff: handoff}
			if err := s.SetStatus(st); err != nil {
				return err
			}
			return wrote(cmd, f, asJSON, st, true, "recorded "+args[0]+"'s status on "+goal, "")
		},
	}
	cmdutil.AddJSONFlags(status, &asJSON, "print the status recorded as JSON")
	status.Flags().StringVar(&goal, "goal", "", "goal id")
	status.Flags().StringVar(&state, "state", "", "state (working, blocked, done, ...)")
	status.Flags().StringVar(&next, "next-action", "", "what the peer does next")
	status.Flags().StringVar(&workspace, "workspace", "", "its worktree slug")
	status.Flags().StringVar(&handoff, "handoff", "", "a handoff reference")

	var as string
	var qJSON bool
	guard := &cobra.Command{
		Use:   "quota-guard AGENT-ID [--as AGENT] [--json]",
		Short: "Exit 0 with the turns a peer has left; exit 5 when spent",
		Args:  cmdutil.ExactArgs(1, "one agent id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := service(f)
			if err != nil {
				return err
			}
			q, err := s.QuotaGuard(args[0], as)
			if q != nil {
				if qJSON {
					cmdutil.ExportJSON(cmd, f.IO.Out, q)
				} else if q.Unlimited {
					fmt.Fprintf(f.IO.Out, "%s: %d turns used, no limit\n", q.Agent, q.Turns)
				} else {
					fmt.Fprintf(f.IO.Out, "%s: %d of %d turns used, %d left\n", q.Agent, q.Turns, q.Limit, q.Remaining)
				}
			}
			return err
		},
	}
	guard.Flags().StringVar(&as, "as", "", "the agent asking (a peer may check only its own quota)")
	cmdutil.AddJSONFlags(guard, &qJSON, "print as JSON")
	cmd.AddCommand(register, attach, ls, status, guard)
	return cmd
}

// describeCaps launches the adapter once to read the capabilities it
// declares.
func describeCaps(f *cmdutil.Factory, adapter string) ([]string, error) {
	repo, err := f.Repo()
	if err != nil {
		return nil, err
	}
	cfg, _, err := f.Config()
	if err != nil {
		return nil, err
	}
	found, err := launch.Adapter(cfg, repo.WorkTree, adapter)
	if err != nil {
		return nil, err
	}
	return host.Capabilities(found.Spec)
}

func sortPeers(ps []*peers.Peer) {
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && ps[j].Agent < ps[j-1].Agent; j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
}

func newCmdGoal(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "goal <command>", Short: "Create goals and configure their optional supervisor"}
	var title string
	var asJSON bool
	create := &cobra.Command{
		Use:   "new GOAL-ID --title T [--json]",
		Short: "Create a goal",
		Args:  cmdutil.ExactArgs(1, "one goal id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := service(f)
			if err != nil {
				return err
			}
			written, err := s.NewGoal(args[0], title)
			if err != nil {
				return err
			}
			return wrote(cmd, f, asJSON, peers.GoalCreated{ID: args[0], Title: title}, written, "created goal "+args[0], "goal "+args[0]+" already exists with that title")
		},
	}
	create.Flags().StringVar(&title, "title", "", "title")
	cmdutil.AddJSONFlags(create, &asJSON, "print the goal recorded as JSON")
	var goal, sup string
	var supervised []string
	var clear, execute bool
	configure := &cobra.Command{
		Use:   "configure --goal G (--supervisor-agent A [--supervised-agent B]... | --clear-supervisor) [--apply]",
		Short: "Configure (or clear) the goal's supervisor; without --apply, validate and print only",
		Args:  cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := service(f)
			if err != nil {
				return err
			}
			if clear == (sup != "") {
				return fault.Invalidf("give --supervisor-agent, or --clear-supervisor")
			}
			cfg, written, err := s.Configure(goal, sup, supervised, clear, execute)
			if err != nil {
				return err
			}
			out := map[string]any{"goal": goal, "coordination": map[string]any{"supervisor": cfg}, "recorded": written}
			if err := writeNamed(cmd, f, peers.SchemaGoalConfig, out); err != nil {
				return err
			}
			if !execute {
				fmt.Fprintln(f.IO.ErrOut, "(validated only; nothing written: add --apply)")
			}
			return nil
		},
	}
	configure.Flags().StringVar(&goal, "goal-id", "", "goal id")
	configure.Flags().StringVar(&sup, "supervisor-agent", "", "the registered peer that supervises")
	configure.Flags().StringArrayVar(&supervised, "supervised-agent", nil, "a peer it observes (repeatable; default: every other peer)")
	configure.Flags().BoolVar(&clear, "clear-supervisor", false, "disable the supervisor")
	configure.Flags().BoolVar(&execute, "execute", false, "record it")
	cmdutil.AddJQFlag(configure)
	cmd.AddCommand(create, configure, newCmdGate(f))
	return cmd
}

func newCmdTodo(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "todo <command>", Short: "Add, claim and release a goal's todos"}
	var goal, id, title, agent, as string
	var lease time.Duration
	var local, asJSON bool
	add := &cobra.Command{
		Use: "add --goal G --id T --title TITLE [--json]", Short: "Add a todo to a goal", Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := service(f)
			if err != nil {
				return err
			}
			written, err := s.AddTodo(goal, id, title)
			if err != nil {
				return err
			}
			return wrote(cmd, f, asJSON, peers.TodoAdded{Goal: goal, Todo: id, Title: title}, written, "added todo "+id, "todo "+id+" already exists")
		},
	}
	add.Flags().StringVar(&goal, "goal", "", "goal id")
	add.Flags().StringVar(&id, "id", "", "todo id")
	add.Flags().StringVar(&title, "title", "", "title")
	claim := &cobra.Command{
		Use: "claim --goal G --todo T --agent A [--lease 30m] [--as A] [--local] [--json]", Short: "Claim a todo for a lease through the claims remote (a peer claims only for itself)", Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := service(f)
			if err != nil {
				return err
			}
			var c *peers.Claim
			if local {
				c, err = s.Claim(goal, id, agent, as, lease)
			} else {
				var a *peers.Arbiter
				if a, err = arbiter(f, s); err == nil {
					c, err = s.ClaimRemote(a, goal, id, agent, as, lease)
				}
			}
			if err != nil {
				return err
			}
			if asJSON {
				return cmdutil.ExportJSON(cmd, f.IO.Out, c)
			}
			where := "on this clone only"
			if c.Arbiter == peers.ArbiterRemote {
				where = "on " + c.Remote
			}
			fmt.Fprintf(f.IO.Out, "%s claims %s until %s %s\n", c.Agent, c.Todo, c.Until, where)
			return nil
		},
	}
	claim.Flags().StringVar(&goal, "goal", "", "goal id")
	claim.Flags().StringVar(&id, "todo", "", "todo id")
	claim.Flags().StringVar(&agent, "agent", "", "the claiming peer")
	claim.Flags().DurationVar(&lease, "lease", 30*time.Minute, "lease length")
	claim.Flags().StringVar(&as, "as", "", "the peer acting (default: --agent)")
	claim.Flags().BoolVar(&local, "local", false, "claim on this clone only, without the remote arbiter")
	release := &cobra.Command{
		Use: "release --goal G --todo T --agent A [--as A] [--local] [--json]", Short: "Release a claimed todo", Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := service(f)
			if err != nil {
				return err
			}
			var c *peers.Claim
			if local {
				c, err = s.Release(goal, id, agent, as)
			} else {
				var a *peers.Arbiter
				if a, err = arbiter(f, s); err == nil {
					c, err = s.ReleaseRemote(a, goal, id, agent, as)
				}
			}
			if err != nil {
				return err
			}
			if asJSON {
				return cmdutil.ExportJSON(cmd, f.IO.Out, c)
			}
			fmt.Fprintf(f.IO.Out, "%s released %s\n", agent, id)
			return nil
		},
	}
	release.Flags().StringVar(&goal, "goal", "", "goal id")
	release.Flags().StringVar(&id, "todo", "", "todo id")
	release.Flags().StringVar(&agent, "agent", "", "the peer holding it")
	release.Flags().StringVar(&as, "as", "", "the peer acting (default: --agent)")
	release.Flags().BoolVar(&local, "local", false, "release a claim taken with --local")
	cmdutil.AddJSONFlags(add, &asJSON, "print the todo recorded as JSON")
	cmdutil.AddJSONFlags(claim, &asJSON, "print the claim as JSON")
	cmdutil.AddJSONFlags(release, &asJSON, "print the release recorded as JSON")
	cmd.AddCommand(add, claim, release)
	return cmd
}

func newCmdEvidence(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "evidence <command>", Short: "Record compact evidence references"}
	var goal, agent, ref, summary string
	var asJSON bool
	add := &cobra.Command{
		Use: "add --goal G --agent A --ref REF --summary TEXT [--json]", Short: "Record an evidence reference", Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := service(f)
			if err != nil {
				return err
			}
			ev := peers.Evidence{Goal: goal, Agent: agent, Ref: ref, Summary: summary}
			if err := s.AddEvidence(ev); err != nil {
				return err
			}
			return wrote(cmd, f, asJSON, ev, true, "recorded evidence "+ref, "")
		},
	}
	cmdutil.AddJSONFlags(add, &asJSON, "print the evidence recorded as JSON")
	add.Flags().StringVar(&goal, "goal", "", "goal id")
	add.Flags().StringVar(&agent, "agent", "", "agent")
	add.Flags().StringVar(&ref, "ref", "", "a compact reference (commit, file, url)")
	add.Flags().StringVar(&summary, "summary", "", "one line")
	cmd.AddCommand(add)
	return cmd
}
