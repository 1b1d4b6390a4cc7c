package policycmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/plugins/host"
)

func newCmdTrust(f *cmdutil.Factory) *cobra.Command {
	var show bool
	cmd := &cobra.Command{
		Use:   "trust [--show]",
		Short: "Trust on this machine the [policies] notify command of agentproto.toml, and the files it names",
		Long: `A notify policy runs [policies] notify with sh -c. From a tracked
agentproto.toml it runs only once trusted on this machine: trust shows the
command with the files of the repository its words name and records their
digest. Any change needs trust again. --show prints without trusting.`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			repo, err := f.Repo()
			if err != nil {
				return err
			}
			cfg, _, err := f.Config()
			if err != nil {
				return err
			}
			if cfg.Policies.Notify == "" {
				fmt.Fprintln(f.IO.Out, "no [policies] notify command to trust")
				return nil
			}
			c, err := host.InspectOptions(repo.WorkTree, repo.WorkTree, host.NotifyLayer(cfg.Policies.Notify))
			if err != nil {
				return err
			}
			added := false
			if !show && !c.Trusted {
				if added, err = host.TrustOptions(repo.WorkTree, c); err != nil {
					return err
				}
				c.Trusted = true
			}
			fmt.Fprintf(f.IO.Out, "[policies] notify:\n%s", c.Describe())
			fmt.Fprintln(f.IO.Out, cmdutil.TrustVerdict(added, c.Trusted))
			return nil
		},
	}
	cmd.Flags().BoolVar(&show, "show", false, "only show the command and whether it is trusted")
	return cmd
}
