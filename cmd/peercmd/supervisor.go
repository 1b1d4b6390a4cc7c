package peercmd

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/lessons"
	"github.com/agentproto/agentproto/peers"
)

func newCmdSupervisor(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "supervisor <command>",
		Short: "The optional peer supervisor: prompt, observation packet, proposals, receipts, inject canary",
		Long: `A supervisor is a registered peer with no authority over the others. It reads
one read-only observation packet, decides (observe, inject, handoff, discard),
and records a typed proposal. Only the host adapter path can write an executed
receipt, and only for inject, when this clone's operator enabled it
(git config agentproto.supervisor.inject enabled). See docs/peer-supervisor.md.`,
	}
	var goal, agent string
	flags := func(c *cobra.Command) {
		c.Flags().StringVar(&goal, "goal-id", "", "goal id")
		c.Flags().StringVar(&agent, "agent-id", "", "the supervisor's agent id")
	}
	var asJSON bool
	prompt := &cobra.Command{
		Use: "prompt --goal G --agent A [--json]", Short: "Print the supervisor's task body", Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := service(f)
			if err != nil {
				return err
			}
			text, err := s.Prompt(goal, agent)
			if err != nil {
				return err
			}
			ls, err := lessons.List(s.Ledger, []string{goal}, true, lessons.Recent)
			switch {
			case err != nil:
				return err
			case asJSON:
				return cmdutil.ExportJSON(cmd, f.IO.Out, map[string]any{"goal": goal, "agent": agent, "prompt": text, "lessons": append([]lessons.Lesson{}, ls...)})
			}
			fmt.Fprint(f.IO.Out, text)
			if len(ls) > 0 {
				fmt.Fprintln(f.IO.Out, "\nLessons from earlier runs:")
				for _, l := range ls {
					fmt.Fprintf(f.IO.Out, "- %s\n", l.Text)
				}
			}
			return nil
		},
	}
	flags(prompt)
	cmdutil.AddJSONFlags(prompt, &asJSON, `print {"goal","agent","prompt","lessons"} as JSON`)
	observe := &cobra.Command{
		Use: "observe --goal G --agent A", Short: "Print the read-only supervisor_observation_v0 packet", Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := service(f)
			if err != nil {
				return err
			}
			o, err := s.Observe(goal, agent)
			if err != nil {
				return err
			}
			return cmdutil.WriteDocument(cmd, f.IO.Out, o)
		},
	}
	flags(observe)
	cmdutil.AddJQFlag(observe)
	cmd.AddCommand(prompt, observe, newCmdEvent(f), newCmdInject(f))
	return cmd
}

func readInput(path, what string) ([]byte, error) {
	if path == "" {
		return nil, fault.Invalidf("--%s is required", what)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fault.Invalidf("--%s: %v", what, err)
	}
	if fi.Size() > peers.MaxInput {
		return nil, fault.Invalidf("--%s is %d bytes; the limit is %d", what, fi.Size(), peers.MaxInput)
	}
	return os.ReadFile(path)
}

func newCmdEvent(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "event <command>", Short: "Record proposals and receipts; list them"}
	var goal, agent, file string
	var execute, asJSON bool
	flags := func(c *cobra.Command) {
		c.Flags().StringVar(&goal, "goal-id", "", "goal id")
		c.Flags().StringVar(&agent, "agent-id", "", "the supervisor's agent id")
	}
	propose := &cobra.Command{
		Use:   "propose --goal G --agent A --decision-json F [--apply]",
		Short: "Validate a supervisor_decision_v0 and, with --apply, record it (supervisor_proposed)",
		Args:  cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return validateThenRecord(cmd, f, file, "decision-json", "the decision", peers.SchemaProposal, execute, func(s *peers.Service, d *peers.Decision) (any, bool, error) {
				return s.Propose(goal, agent, d, execute)
			})
		},
	}
	flags(propose)
	cmdutil.AddJQFlag(propose)
	propose.Flags().StringVar(&file, "decision-json", "", "file holding the decision")
	propose.Flags().BoolVar(&execute, "execute", false, "record it")
	receipt := &cobra.Command{
		Use:   "receipt --goal G --agent A --receipt-json F [--apply]",
		Short: "Validate a rejected or failed supervisor_receipt_v0 and, with --apply, record it",
		Long: `The CLI records rejected and failed attempts only. An executed receipt is refused
here (exit 5): only the host adapter path can write one, with capabilities it
verified itself, an authority reference, evidence and a rollback boundary.`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return validateThenRecord(cmd, f, file, "receipt-json", "the receipt", peers.SchemaReceiptRecord, execute, func(s *peers.Service, r *peers.ReceiptDoc) (any, bool, error) {
				return s.RecordReceipt(goal, agent, r, execute)
			})
		},
	}
	flags(receipt)
	cmdutil.AddJQFlag(receipt)
	receipt.Flags().StringVar(&file, "receipt-json", "", "file holding the receipt")
	receipt.Flags().BoolVar(&execute, "execute", false, "record it")
	list := &cobra.Command{
		Use: "list --goal G --agent A [--json]", Short: "List proposals and their receipts", Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := service(f)
			if err != nil {
				return err
			}
			rows, err := s.List(goal, agent)
			if err != nil {
				return err
			}
			if asJSON {
				return cmdutil.ExportJSON(cmd, f.IO.Out, rows)
			}
			for _, r := range rows {
				fmt.Fprintf(f.IO.Out, "%-16s %-8s %-12s executed=%v receipts=%v\n", r.DecisionID, r.Kind, r.Target, r.Executed, r.Receipts)
			}
			return nil
		},
	}
	flags(list)
	cmdutil.AddJSONFlags(list, &asJSON, "print as JSON")
	cmd.AddCommand(propose, receipt, list)
	return cmd
}

func newCmdInject(f *cmdutil.Factory) *cobra.Command {
	var r peers.InjectRequest
	var execute bool
	cmd := &cobra.Command{
		Use:   "inject --goal G --agent A --decision-id D --authority-ref R --rollback-mode M --rollback-policy-ref P [--apply]",
		Short: "The inject canary: validate, and with --apply send the message and record the executed receipt",
		Long: `Without --apply the whole request is validated (the decision exists and is an
inject, the target's session is live and its adapter declares
session_message_injection) and nothing is called. With --apply the message
goes through the host's session path and the executed (or failed) receipt is
appended with the capabilities the adapter declared. A prior executed receipt
suppresses a second send. Executing is off unless this clone's operator
enabled it: git config --local agentproto.supervisor.inject enabled.`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := service(f)
			if err != nil {
				return err
			}
			plan, err := s.PlanInject(r)
			if err != nil {
				return err
			}
			if plan.Already != nil {
				fmt.Fprintf(f.IO.ErrOut, "decision %s was already executed (receipt %s); nothing sent\n", r.DecisionID, plan.Already.Receipt.ReceiptID)
				return writeNamed(cmd, f, peers.SchemaInjectPlan, plan)
			}
			if !execute {
				fmt.Fprintf(f.IO.ErrOut, "valid: would inject decision %s into session %s (%d characters); nothing sent: add --apply\n", r.DecisionID, plan.Session, len(plan.Decision.Message))
				return writeNamed(cmd, f, peers.SchemaInjectPlan, plan)
			}
			repo, _ := f.Repo()
			dir := repo.WorkTree
			if dir == "" {
				dir = repo.GitDir
			}
			if !peers.InjectEnabled(dir) {
				return fault.Refusedf("executing injections is disabled on this clone; its operator enables it with: git config --local %s enabled", peers.InjectConfigKey)
			}
			client, err := f.Sessions()
			if err != nil {
				return err
			}
			send := func(ctx context.Context, session, message string) error {
				return client.Prompt(context.Background(), session, message, false)
			}
			rec, err := s.ExecuteInject(r, plan, send)
			if rec != nil {
				if werr := writeNamed(cmd, f, peers.SchemaReceiptRecord, rec); err == nil {
					err = werr
				}
			}
			return err
		},
	}
	cmdutil.AddJQFlag(cmd)
	fl := cmd.Flags()
	fl.StringVar(&r.Goal, "goal-id", "", "goal id")
	fl.StringVar(&r.Agent, "agent-id", "", "the supervisor's agent id")
	fl.StringVar(&r.DecisionID, "decision-id", "", "the inject decision")
	fl.StringVar(&r.AuthorityRef, "authority-ref", "", "opaque reference to the authority for this execution")
	fl.StringVar(&r.RollbackMode, "rollback-mode", "", "compensating_action or not_reversible")
	fl.StringVar(&r.RollbackPolicyRef, "rollback-policy-ref", "", "opaque reference to the rollback policy")
	fl.BoolVar(&execute, "execute", false, "send it")
	return cmd
}

// validateThenRecord reads a JSON input with the hygiene checks, hands it
// to act, prints the normalized result under schema and says whether anything was
// recorded. The input's path is never recorded.
func validateThenRecord[T any](cmd *cobra.Command, f *cmdutil.Factory, file, flag, what, schema string, execute bool,
	act func(*peers.Service, *T) (any, bool, error)) error {
	s, err := service(f)
	if err != nil {
		return err
	}
	b, err := readInput(file, flag)
	if err != nil {
		return err
	}
	var doc T
	if err := peers.DecodeStrict(b, what, &doc); err != nil {
		return err
	}
	out, written, err := act(s, &doc)
	if err != nil {
		return err
	}
	if err := writeNamed(cmd, f, schema, out); err != nil {
		return err
	}
	switch {
	case !execute:
		fmt.Fprintln(f.IO.ErrOut, "(valid; nothing recorded: add --apply)")
	case !written:
		fmt.Fprintln(f.IO.ErrOut, "(already recorded with the same content)")
	}
	return nil
}
