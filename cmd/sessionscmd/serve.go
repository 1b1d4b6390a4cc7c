package sessionscmd

import (
	"errors"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/sessions/daemon"
)

// The serve command is the one place that runs the sessions daemon; every
// other command is its client (cmd/shape checks it).

// ServeOptions are the inputs of `serve`.
type ServeOptions struct {
	Repo func() (*gitrepo.Repo, error)
	// IdleExit is [sessions] idle_exit: how long the daemon stays with
	// nothing to do.
	IdleExit func() (time.Duration, error)

	Guard bool
}

// NewCmdServe returns the daemon command, normally started by the CLI.
func NewCmdServe(f *cmdutil.Factory) *cobra.Command {
	opts := &ServeOptions{Repo: f.Repo, IdleExit: func() (time.Duration, error) {
		cfg, _, err := f.Config()
		return cfg.Sessions.IdleExit.Duration, err
	}}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the sessions daemon of this repository (started automatically)",
		Long: `The daemon owns the adapter plugins of running sessions, so sessions outlive
the command that started them. The sessions commands start it on demand. It
stops by itself after [sessions] idle_exit with nothing running: no turn in
progress, no request in flight (a watch refreshing or a probe does not
count), no idle policy waiting on a live session. It also stops on SIGTERM
or git agentproto sessions stop. As it stops it ends the sessions still
alive, settled ones included, and records why.`,
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
	if o.Guard {
		return daemon.Guard(os.Stdin, os.Stderr)
	}
	repo, err := o.Repo()
	if err != nil {
		return err
	}
	idle, err := o.IdleExit()
	if err != nil {
		return err
	}
	if v := os.Getenv("AGENTPROTO_DAEMON_IDLE"); v != "" {
		if d, err := time.ParseDuration(v); err == nil {
			idle = d
		}
	}
	err = daemon.NewDaemon(repo, idle, os.Stderr).Run()
	if errors.Is(err, daemon.ErrRunning) {
		return nil
	}
	return err
}
