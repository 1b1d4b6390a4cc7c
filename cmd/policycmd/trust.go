package policycmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
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
			t, err := f.App().TrustNotify(cmd.Context(), show)
			switch {
			case err != nil:
				return err
			case t == nil:
				fmt.Fprintln(f.IO.Out, "no [policies] notify command to trust")
				return nil
			}
			fmt.Fprintf(f.IO.Out, "[policies] notify:\n%s", t.Options.Describe())
			fmt.Fprintln(f.IO.Out, cmdutil.TrustVerdict(t.Recorded, t.Options.Trusted))
			return nil
		},
	}
	cmd.Flags().BoolVar(&show, "show", false, "only show the command and whether it is trusted")
	return cmd
}
