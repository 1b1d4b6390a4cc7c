package peercmd

import (
	"strings"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/peers"
	"github.com/spf13/cobra"
)

// newCmdGate is goal gate add|close: the goal's user gates, decisions only
// the user takes, which the supervisor's packet lists while open.
func newCmdGate(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "gate <command>", Short: "Record a decision only the user can take, and close it with the user's answer"}
	var goal, id, question, answer string
	var asJSON bool
	add := &cobra.Command{
		Use: "add --goal G --id GATE --question Q [--json]", Short: "Open a user gate of a goal", Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := service(f)
			if err != nil {
				return err
			}
			written, err := s.AddGate(goal, id, question)
			if err != nil {
				return err
			}
			return wrote(cmd, f, asJSON, peers.GateOpened{Goal: goal, Gate: id, Question: question}, written,
				"opened gate "+id+" of goal "+goal, "gate "+id+" is already open with that question")
		},
	}
	closeCmd := &cobra.Command{
		Use: "close --goal G --id GATE --answer A [--json]", Short: "Close a user gate with the user's answer", Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := service(f)
			if err != nil {
				return err
			}
			written, err := s.CloseGate(goal, id, answer)
			if err != nil {
				return err
			}
			return wrote(cmd, f, asJSON, peers.GateClosed{Goal: goal, Gate: id, Answer: answer}, written,
				"closed gate "+id+" of goal "+goal, "gate "+id+" is already closed with that answer")
		},
	}
	for _, c := range []*cobra.Command{add, closeCmd} {
		c.Flags().StringVar(&goal, "goal", "", "goal id")
		c.Flags().StringVar(&id, "id", "", "gate id")
		cmdutil.AddJSONFlags(c, &asJSON, "print the record as JSON")
	}
	add.Flags().StringVar(&question, "question", "", "the decision the user must take")
	closeCmd.Flags().StringVar(&answer, "answer", "", "the user's decision")
	cmd.AddCommand(add, closeCmd)
	return cmd
}

// contractFlags are peer register's --address-via and --addressed-by.
type contractFlags struct{ via, by []string }

func (c *contractFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar(&c.via, "address-via", nil, "how the peer may be addressed: "+strings.Join(peers.ContractVia, ", ")+" (repeatable)")
	cmd.Flags().StringArrayVar(&c.by, "addressed-by", nil, "who may address it: "+strings.Join(peers.ContractBy, ", ")+" or an agent id (repeatable)")
}

func (c *contractFlags) contract() *peers.Contract {
	if len(c.via) == 0 && len(c.by) == 0 {
		return nil
	}
	return &peers.Contract{Via: append([]string{}, c.via...), By: append([]string{}, c.by...)}
}
