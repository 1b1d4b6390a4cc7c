package pipelinecmd

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
)

// ExitInterrupted is what a shell reports for a command ended by Ctrl-C
// (128 + SIGINT), kept so that scripts see the interrupt as one.
const ExitInterrupted = 130

// onInterrupt makes Ctrl-C during a long step say what of the plan is
// still at work — sessions live in the sessions daemon outlive this
// command — and the one command that resumes, then exit 130. The returned
// func stops listening.
func onInterrupt(o deps, project, resume string) (stop func()) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	done := make(chan struct{})
	go func() {
		select {
		case <-sig:
		case <-done:
			return
		}
		fmt.Fprintf(o.IO.ErrOut, "\ninterrupted: %s; next: %s\n", stillAtWork(o, project), resume)
		os.Exit(ExitInterrupted)
	}()
	return func() {
		signal.Stop(sig)
		close(done)
	}
}

// stillAtWork names the plan's sessions that are live, by WP.
func stillAtWork(o deps, project string) string {
	live, err := o.App.AtWork(context.Background(), project)
	if err != nil {
		return "the sessions could not be listed (" + err.Error() + ")"
	}
	if len(live) == 0 {
		return "no session of " + project + " is at work"
	}
	return strings.Join(live, ", ") + " still at work in the sessions daemon, which carries on"
}
