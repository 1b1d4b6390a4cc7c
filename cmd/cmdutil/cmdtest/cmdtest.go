// Package cmdtest holds what the verbs' flag tests share: a factory with
// test streams, running a command on arguments, and building a verb with a
// runF that keeps the options it was given.
package cmdtest

import (
	"testing"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
)

// Factory is a factory with test streams and nothing else: a verb that
// loads anything before its runF fails the test that builds it.
func Factory() *cmdutil.Factory {
	io, _, _, _ := cmdutil.Test()
	return &cmdutil.Factory{IO: io}
}

// Execute runs cmd on args, quietly: the error is the test's to read.
func Execute(cmd *cobra.Command, args ...string) error {
	cmd.SetArgs(args)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	return cmd.Execute()
}

// Capture builds a verb with a runF that keeps its options and runs it on
// args: the flags land where the run reads them, and nothing is loaded
// before it.
func Capture[O any](t testing.TB, newCmd func(*cmdutil.Factory, func(*O) error) *cobra.Command, args ...string) *O {
	t.Helper()
	var got *O
	if err := Execute(newCmd(Factory(), func(o *O) error { got = o; return nil }), args...); err != nil {
		t.Fatal(err)
	}
	if got == nil {
		t.Fatal("runF was not called")
	}
	return got
}
