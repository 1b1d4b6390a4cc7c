package main

import (
	"errors"
	"os"
	"time"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/sessions/daemon"
)

// serve runs the sessions daemon of the repository of the working
// directory, or with --guard the guard the daemon starts: it reads the
// daemon's process groups on stdin and kills those left open when the
// daemon is gone. The Factory is the CLI's, so the daemon finds the
// repository, reads its config and sets up the process (the secrets it
// keeps out of the ledger, the sandbox's judged config) as before.
func serve(args []string) error {
	guard := false
	for _, a := range args {
		if a != "--guard" {
			return fault.Invalidf("serve takes no argument but --guard, got %q", a)
		}
		guard = true
	}
	if guard {
		return daemon.Guard(os.Stdin, os.Stderr)
	}
	f := cmdutil.New(cmdutil.System(), "")
	repo, err := f.Repo()
	if err != nil {
		return err
	}
	cfg, _, err := f.Config()
	if err != nil {
		return err
	}
	idle := cfg.Sessions.IdleExit.Duration
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
