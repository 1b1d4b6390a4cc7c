package peercmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
)

// LsOptions are the inputs of `peer ls`.
type LsOptions struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	JSON   bool
	Export *cmdutil.Exporter
}

// NewCmdLs returns `peer ls`.
func NewCmdLs(f *cmdutil.Factory, runF func(*LsOptions) error) *cobra.Command {
	o := &LsOptions{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use:   "ls [--json]",
		Short: "List registered peers",
		Args:  cmdutil.NoArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return cmdutil.RunOr(o, runF, lsRun) },
	}
	o.Export = cmdutil.AddJSONFlags(cmd, &o.JSON, "print as JSON")
	return cmd
}

func lsRun(o *LsOptions) error {
	rows, err := o.App.ListPeers(context.Background())
	if err != nil {
		return err
	}
	if o.JSON {
		return o.Export.Write(o.IO.Out, rows)
	}
	for _, p := range rows {
		// 0 is what register records for no limit.
		quota := "quota=unlimited"
		if p.QuotaTurns > 0 {
			quota = fmt.Sprintf("quota=%d", p.QuotaTurns)
		}
		fmt.Fprintf(o.IO.Out, "%-16s %-12s %-15s  %s\n", p.Agent, p.Adapter, quota, strings.Join(p.Capabilities, ","))
	}
	return nil
}
