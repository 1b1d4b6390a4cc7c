package plan

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/internal/fault"
)

// FreezeOptions are the inputs of `plan freeze`.
type FreezeOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	Project string
	JSON    bool
	Export  *cmdutil.Exporter
}

// NewCmdFreeze returns `plan freeze`.
func NewCmdFreeze(f *cmdutil.Factory, runF func(*FreezeOptions) error) *cobra.Command {
	o := &FreezeOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use:   "freeze PROJECT [--json]",
		Short: "Record the checked plan in the ledger (plan_frozen, every file attached)",
		Args:  cmdutil.ExactArgs(1, "one plan name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Project = args[0]
			return cmdutil.RunOr(o, runF, freezeRun)
		},
	}
	o.Export = cmdutil.AddJSONFlags(cmd, &o.JSON, "print the result as JSON")
	return cmd
}

// frozenDoc is the --json document of a freeze, in the order of its JSON
// names, as the map it replaced printed them.
type frozenDoc struct {
	Files   any    `json:"files"`
	Record  string `json:"record"`
	Written bool   `json:"written"`
}

func freezeRun(o *FreezeOptions) error {
	res, err := o.App.FreezePlan(context.Background(), o.Project)
	var pe *app.PlanErrors
	if errors.As(err, &pe) {
		printFindings(o.IO.Out, pe.Report)
		return fault.Refusedf("%v; nothing was recorded", pe)
	}
	if res == nil {
		return err
	}
	p, fr := res.Project, res.Frozen
	if fr != nil {
		cmdutil.Warn(o.IO.ErrOut, fr.Warnings)
	}
	switch {
	case err != nil:
		return err
	case o.JSON:
		return o.Export.Write(o.IO.Out, frozenDoc{Files: fr.Files, Record: fr.RecordID, Written: res.Written})
	case !res.Written:
		fmt.Fprintf(o.IO.Out, "plan %s is already frozen as %s; nothing written\n", p.Name, fr.RecordID)
		return nil
	}
	fmt.Fprintf(o.IO.Out, "froze plan %s as %s (%d files, base %s)\n", p.Name, fr.RecordID, len(fr.Files), short(fr.BaseCommit))
	return nil
}
