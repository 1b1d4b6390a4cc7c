// Package peercmd wires the peer supervisor protocol: the peer, goal,
// todo, evidence and supervisor nouns. Each verb has an Options struct
// (dependencies, then flag values) and a run function, in a file of its
// own; tests pass a runF to check the flags alone.
package peercmd

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/internal/jsondoc"
)

// Commands returns the protocol's commands for the root.
func Commands(f *cmdutil.Factory) []*cobra.Command {
	return []*cobra.Command{newCmdPeer(f), newCmdGoal(f), newCmdTodo(f), newCmdEvidence(f), newCmdSupervisor(f)}
}

func newCmdPeer(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "peer <command>", Short: "Register peer agents, report their status, guard their quota"}
	cmd.AddCommand(NewCmdRegister(f, nil), NewCmdAttach(f, nil), NewCmdLs(f, nil), NewCmdStatus(f, nil), NewCmdQuotaGuard(f, nil))
	return cmd
}

func newCmdGoal(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "goal <command>", Short: "Create goals and configure their optional supervisor"}
	gate := &cobra.Command{Use: "gate <command>", Short: "Record a decision only the user can take, and close it with the user's answer"}
	gate.AddCommand(NewCmdGateAdd(f, nil), NewCmdGateClose(f, nil))
	cmd.AddCommand(NewCmdGoalNew(f, nil), NewCmdConfigure(f, nil), gate)
	return cmd
}

func newCmdTodo(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "todo <command>", Short: "Add, claim and release a goal's todos"}
	cmd.AddCommand(NewCmdTodoAdd(f, nil), NewCmdClaim(f, nil), NewCmdRelease(f, nil))
	return cmd
}

func newCmdEvidence(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "evidence <command>", Short: "Record compact evidence references"}
	cmd.AddCommand(NewCmdEvidenceAdd(f, nil))
	return cmd
}

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
	event := &cobra.Command{Use: "event <command>", Short: "Record proposals and receipts; list them"}
	event.AddCommand(NewCmdPropose(f, nil), NewCmdReceipt(f, nil), NewCmdList(f, nil))
	cmd.AddCommand(NewCmdPrompt(f, nil), NewCmdObserve(f, nil), event, NewCmdInject(f, nil))
	return cmd
}

// wrote prints what a write did: with --json the record, with "recorded"
// false when the same record was there already; else one sentence.
func wrote(w io.Writer, x *cmdutil.Exporter, asJSON bool, rec any, written bool, did, same string) error {
	if asJSON {
		doc, err := jsondoc.With(rec, "recorded", written)
		if err != nil {
			return err
		}
		return x.Write(w, doc)
	}
	if !written {
		did = same
	}
	_, err := fmt.Fprintln(w, did)
	return err
}
