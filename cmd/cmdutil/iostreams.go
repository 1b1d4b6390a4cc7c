// Package cmdutil holds what every command shares: the factory of lazily
// built dependencies, the IO streams and argument helpers.
package cmdutil

import (
	"bytes"
	"io"
	"os"

	"github.com/mattn/go-isatty"
)

// IOStreams are the command's standard streams. Data goes to Out, chatter
// and progress to ErrOut.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	stdoutTTY bool
	stderrTTY bool
}

// System returns the process's own streams. Terminal detection stays with
// go-isatty: go-gh's term.IsTerminal is the same call wrapped, and its
// Term (FromEnv) judges stdout only and honours GH_FORCE_TTY and gh's
// colour variables, which are not ours; the swap would change no line.
func System() *IOStreams {
	return &IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		stdoutTTY: isatty.IsTerminal(os.Stdout.Fd()), stderrTTY: isatty.IsTerminal(os.Stderr.Fd())}
}

// Test returns in-memory streams for tests.
func Test() (*IOStreams, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	in, out, errOut := &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut}, in, out, errOut
}

// IsStdoutTTY reports whether stdout is a terminal.
func (s *IOStreams) IsStdoutTTY() bool { return s.stdoutTTY }

// IsStderrTTY reports whether stderr is a terminal.
func (s *IOStreams) IsStderrTTY() bool { return s.stderrTTY }

// Progress is where a command that prints a document on stdout shows its
// progress: stderr when a person watches it, nowhere when a program reads
// the streams (the document says how it went).
func (s *IOStreams) Progress() io.Writer {
	if s.stderrTTY {
		return s.ErrOut
	}
	return io.Discard
}
