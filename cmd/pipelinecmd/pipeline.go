// Package pipelinecmd wires the supervisor pipeline: dispatch, verify,
// checkpoint, consolidate, review, e2e, pr open and run. The work is in
// package pipeline; each verb parses flags into its Options, calls it and
// prints.
package pipelinecmd

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/judge"
)

// Commands returns the pipeline commands for the root.
func Commands(f *cmdutil.Factory) []*cobra.Command {
	return []*cobra.Command{NewCmdDispatch(f, nil), NewCmdVerify(f, nil), NewCmdCheckpoint(f, nil), NewCmdConsolidate(f, nil),
		newCmdReview(f), NewCmdE2E(f, nil), newCmdPR(f), NewCmdRun(f, nil), NewCmdWaiting(f, nil)}
}

// deps are what every pipeline verb is built from: the streams and the
// use-case layer, whose dependencies are made lazily.
type deps struct {
	IO  *cmdutil.IOStreams
	App *app.Env
}

func newDeps(f *cmdutil.Factory) deps { return deps{IO: f.IO, App: f.App()} }

func printFindings(w io.Writer, fs []judge.Finding) {
	for _, fd := range fs {
		where := fd.File
		if fd.Line > 0 {
			where = fmt.Sprintf("%s:%d", fd.File, fd.Line)
		}
		if fd.WP != "" {
			where = strings.TrimSpace(fd.WP + " " + where)
		}
		code := fd.Code
		if fd.Severity == "warning" {
			code = "warning " + code
		}
		fmt.Fprintf(w, "  %s %s: %s\n", code, where, fd.Message)
	}
}

// errorCount counts the findings that fail a review; warnings do not.
func errorCount(fs []judge.Finding) int {
	n := 0
	for _, f := range fs {
		if f.Severity != "warning" {
			n++
		}
	}
	return n
}

func warnings(fs []judge.Finding) string {
	if n := len(fs) - errorCount(fs); n > 0 {
		return fmt.Sprintf(" (and %d warnings)", n)
	}
	return ""
}
