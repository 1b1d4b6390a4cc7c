package peercmd

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/peers"
)

// EvidenceAddOptions are the inputs of `evidence add`.
type EvidenceAddOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	Evidence peers.Evidence
	JSON     bool
	Export   *cmdutil.Exporter
}

// NewCmdEvidenceAdd returns `evidence add`.
func NewCmdEvidenceAdd(f *cmdutil.Factory, runF func(*EvidenceAddOptions) error) *cobra.Command {
	o := &EvidenceAddOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use: "add --goal G --agent A --ref REF --summary TEXT [--json]", Short: "Record an evidence reference", Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmdutil.RunOr(o, runF, evidenceAddRun) },
	}
	o.Export = cmdutil.AddJSONFlags(cmd, &o.JSON, "print the evidence recorded as JSON")
	fl, ev := cmd.Flags(), &o.Evidence
	fl.StringVar(&ev.Goal, "goal", "", "goal id")
	fl.StringVar(&ev.Agent, "agent", "", "agent")
	fl.StringVar(&ev.Ref, "ref", "", "a compact reference (commit, file, url)")
	fl.StringVar(&ev.Summary, "summary", "", "one line")
	return cmd
}

func evidenceAddRun(o *EvidenceAddOptions) error {
	if err := o.App.AddEvidence(context.Background(), o.Evidence); err != nil {
		return err
	}
	return wrote(o.IO.Out, o.Export, o.JSON, o.Evidence, true, "recorded evidence "+o.Evidence.Ref, "")
}
