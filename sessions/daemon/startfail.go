package daemon

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/sessions"
)

// failStart fails a session that did not get through start and returns
// its record with one error that says it all.
func (d *Daemon) failStart(l *live, reason string, cause error) (*sessions.Record, error) {
	d.fail(l, reason)
	rec := d.snapshot(l.rec)
	return rec, startError(rec, cause)
}

// startError names the session, its state and why (the first reason
// recorded wins: the event stream may have seen the crash first), with the
// adapter's last stderr lines: the caller gets the whole story at once,
// and the id to look further.
func startError(rec *sessions.Record, cause error) error {
	why := rec.Failure
	if why == "" && cause != nil {
		why = cause.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "session %s %s: %s", rec.ID, rec.State, why)
	if rec.StderrTail != "" {
		b.WriteString("\nadapter stderr (last lines):")
		for _, line := range strings.Split(rec.StderrTail, "\n") {
			b.WriteString("\n  " + line)
		}
	}
	if rec.OutputBytes > 0 {
		fmt.Fprintf(&b, "\n(its output: git agentproto sessions output %s)", rec.ID)
	}
	kind := fault.KindOf(cause)
	if cause == nil || kind == 0 {
		kind = fault.Failure
	}
	return fault.Wrap(kind, errors.New(b.String()))
}
