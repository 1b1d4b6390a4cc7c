// Package synccmd wires `git agentproto sync`.
package synccmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
)

// Options are the inputs of `sync`.
type Options struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	Remote string
	JSON   bool
	Export *cmdutil.Exporter
}

// NewCmdSync returns `sync`.
func NewCmdSync(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: f.IO, App: f.App()}
	cmd := &cobra.Command{
		Use:   "sync [REMOTE] [--json]",
		Short: "Fetch other writers' ledger refs and push this clone's own",
		Long: `Fetch refs/agentproto/ledger/* from REMOTE (default: [sync] remote, then
origin) and push this clone's writer ref to it, through the git CLI so your
credentials, ssh config and url rewrites apply. Nothing is ever forced: each
writer ref has one writer, so every update is a fast-forward. A peer ref its
writer rewound on the remote is quarantined: its old tip is kept as
refs/agentproto/quarantine/<writer>/<time> (read it with git log), the ref
follows the remote again, a warning says so (and --json lists it under
"quarantined"), and the sync goes on with the other refs and the push.`,
		Args: cmdutil.MaxArgs(1, "one remote"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Remote = args[0]
			}
			if runF != nil {
				return runF(opts)
			}
			return syncRun(opts)
		},
	}
	opts.Export = cmdutil.AddJSONFlags(cmd, &opts.JSON, "print the report as JSON")
	return cmd
}

func syncRun(o *Options) error {
	rep, err := o.App.Sync(context.Background(), o.Remote)
	if rep != nil {
		cmdutil.Warn(o.IO.ErrOut, rep.Warnings)
	}
	if err != nil {
		return err
	}
	for _, q := range rep.Quarantined {
		fmt.Fprintf(o.IO.ErrOut, "warning: %s was rewound on %s by its writer (%s -> %s, %d events no longer on it); its old tip is kept as %s, and the ref follows %s again\n",
			q.Ref, rep.Remote, short(q.Old), short(q.New), q.Events, q.KeptAs, rep.Remote)
	}
	if o.JSON {
		return o.Export.Write(o.IO.Out, rep)
	}
	out := o.IO.Out
	if len(rep.Fetched) == 0 {
		fmt.Fprintf(out, "fetched: nothing new from %s\n", rep.Remote)
	}
	for _, m := range rep.Fetched {
		fmt.Fprintf(out, "fetched: %s %s, +%d events\n", m.Ref, m.Status, m.Events)
	}
	if p := rep.Pushed; p != nil {
		if p.Status == "up to date" {
			fmt.Fprintf(out, "pushed:  %s up to date\n", p.Ref)
		} else {
			fmt.Fprintf(out, "pushed:  %s %s, +%d events\n", p.Ref, p.Status, p.Events)
		}
	} else {
		fmt.Fprintln(out, "pushed:  nothing (no events written from this clone yet)")
	}
	fmt.Fprintf(out, "ledger:  %d events\n", rep.Events)
	return nil
}

func short(oid string) string {
	if len(oid) > 12 {
		return oid[:12]
	}
	return oid
}
