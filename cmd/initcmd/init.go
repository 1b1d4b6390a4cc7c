// Package initcmd wires `git agentproto init`.
package initcmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/internal/clonesetup"
	"github.com/agentproto/agentproto/internal/gitrepo"
)

// Options are the inputs of `init`.
type Options struct {
	IO   *cmdutil.IOStreams
	Repo func() (*gitrepo.Repo, error)

	Remote string
	JSON   bool
	Export *cmdutil.Exporter
}

// NewCmdInit returns `init`.
func NewCmdInit(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: f.IO, Repo: f.Repo}
	cmd := &cobra.Command{
		Use:   "init [--remote NAME]",
		Short: "Prepare this clone for agentproto (idempotent)",
		Long: `Prepare this clone, changing only what is missing:
  - create this clone's ledger writer id (kept in the common git dir);
  - add a non-forcing fetch refspec for refs/agentproto/* to the remote
    (origin by default) if it exists; never a push refspec;
  - write a commented agentproto.toml if the repository has none;
  - keep .plans/ out of commits (info/exclude).`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return initRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Remote, "remote", "origin", "remote that gets the ledger fetch refspec")
	opts.Export = cmdutil.AddJSONFlags(cmd, &opts.JSON, "print what changed as JSON")
	return cmd
}

func initRun(o *Options) error {
	repo, err := o.Repo()
	if err != nil {
		return err
	}
	writer, changed, err := clonesetup.Prepare(repo, o.Remote)
	if err != nil {
		return err
	}
	if o.JSON {
		return o.Export.Write(o.IO.Out, map[string]any{"writer": writer, "changed": nonNil(changed)})
	}
	if len(changed) == 0 {
		fmt.Fprintf(o.IO.Out, "already initialised (writer %s)\n", writer)
	}
	for _, c := range changed {
		fmt.Fprintln(o.IO.Out, c)
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
