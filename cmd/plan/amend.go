package plan

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/plans"
)

// AmendOptions are the inputs of `plan amend`.
type AmendOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	Project    string
	Correction string
	Recon      bool
	JSON       bool
	Export     *cmdutil.Exporter
}

// NewCmdAmend returns `plan amend`.
func NewCmdAmend(f *cmdutil.Factory, runF func(*AmendOptions) error) *cobra.Command {
	o := &AmendOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use:   "amend PROJECT --correction TEXT [--recon] [--json]",
		Short: "Append a dated CORRECTION to the SPEC (or, with --recon, to RECON.md) and record it in the ledger",
		Args:  cmdutil.ExactArgs(1, "one plan name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Project = args[0]
			return cmdutil.RunOr(o, runF, amendRun)
		},
	}
	cmd.Flags().StringVar(&o.Correction, "correction", "", "the corrected fact")
	cmd.Flags().BoolVar(&o.Recon, "recon", false, "correct the scout's RECON.md instead of the SPEC (briefs rendered afterwards carry it)")
	cmd.MarkFlagRequired("correction")
	o.Export = cmdutil.AddJSONFlags(cmd, &o.JSON, `print {"project","file","recorded"} as JSON`)
	return cmd
}

// amendDoc is the --json document of an amendment, in the order of its
// JSON names, as the map it replaced printed them.
type amendDoc struct {
	File     string `json:"file"`
	Project  string `json:"project"`
	Recorded bool   `json:"recorded"`
}

func amendRun(o *AmendOptions) error {
	file := "SPEC.md"
	if o.Recon {
		file = plans.ReconFile
	}
	p, recorded, err := o.App.AmendPlan(context.Background(), o.Project, file, o.Correction)
	switch {
	case err != nil:
		return err
	case o.JSON:
		return o.Export.Write(o.IO.Out, amendDoc{File: file, Project: p.Name, Recorded: recorded})
	case !recorded:
		fmt.Fprintln(o.IO.Out, "this correction is already recorded; nothing written")
		return nil
	}
	fmt.Fprintf(o.IO.Out, "appended a CORRECTION to %s and recorded it\n", filepath.Join(plans.Dir, p.Name, file))
	return nil
}
