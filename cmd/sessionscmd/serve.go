package sessionscmd

import (
	"os"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
)

// The daemon is its own binary, agentproto-sessions, the one program that
// links the plugin transport; serve hands over to it, so that clients
// start a daemon by running git-agentproto serve as they always have.

// ServeOptions are the inputs of `serve`.
type ServeOptions struct {
	// Exec replaces this process with the daemon's program.
	Exec func(path string, argv []string) error

	Guard bool
}

// NewCmdServe returns the daemon command, normally started by the CLI.
func NewCmdServe(f *cmdutil.Factory) *cobra.Command {
	opts := &ServeOptions{Exec: func(path string, argv []string) error { return syscall.Exec(path, argv, os.Environ()) }}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the sessions daemon of this repository (started automatically)",
		Long: `The daemon owns the adapter plugins of running sessions, so sessions outlive
the command that started them. The sessions commands start it on demand. It
stops by itself after [sessions] idle_exit with nothing running: no turn in
progress, no request in flight (a watch refreshing or a probe does not
count), no idle policy waiting on a live session. It also stops on SIGTERM
or git agentproto sessions stop. As it stops it ends the sessions still
alive, settled ones included, and records why.

The daemon is the program agentproto-sessions, installed beside
git-agentproto; serve runs it in place of itself.`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return serveRun(opts) },
	}
	// The daemon starts its guard this way: it reads the daemon's process
	// groups on stdin and kills those left open when the daemon is gone.
	cmd.Flags().BoolVar(&opts.Guard, "guard", false, "")
	cmd.Flags().MarkHidden("guard")
	return cmd
}

func serveRun(o *ServeOptions) error {
	bin, err := app.DaemonProgram()
	if err != nil {
		return err
	}
	argv := []string{bin, "serve"}
	if o.Guard {
		argv = append(argv, "--guard")
	}
	return o.Exec(bin, argv)
}
