package cmdutil

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/jsondoc"
)

// ExactArgs is cobra.ExactArgs with a usage-class error.
func ExactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return fault.Invalidf("%s takes %s (got %d arguments)", cmd.CommandPath(), what, len(args))
		}
		return nil
	}
}

// MaxArgs is cobra.MaximumNArgs with a usage-class error.
func MaxArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > n {
			return fault.Invalidf("%s takes at most %s (got %d arguments)", cmd.CommandPath(), what, len(args))
		}
		return nil
	}
}

// NoArgs refuses positional arguments.
func NoArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return fault.Invalidf("%s takes no arguments (got %q)", cmd.CommandPath(), args[0])
	}
	return nil
}

// WriteJSON prints v as one line of JSON.
func WriteJSON(w io.Writer, v any) error { return jsondoc.Write(w, v) }

// WriteJSONIndent prints v as indented JSON.
func WriteJSONIndent(w io.Writer, v any) error { return jsondoc.WriteIndent(w, v) }

// Warn prints warnings collected while reading, one per line.
func Warn(w io.Writer, warnings []string) {
	for _, s := range warnings {
		fmt.Fprintln(w, "warning:", s)
	}
}

// SilentError is an error whose message the command already printed; main
// only turns it into an exit code.
type SilentError struct{ Err error }

func (e *SilentError) Error() string { return e.Err.Error() }
func (e *SilentError) Unwrap() error { return e.Err }

// Silent marks err as already reported.
func Silent(err error) error { return &SilentError{Err: err} }

// MinArgs requires at least n positional arguments, named what.
func MinArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return fault.Invalidf("%s takes at least %s", cmd.CommandPath(), what)
		}
		return nil
	}
}

// RunOr calls runF when a test gave one, else run: the Options + runF
// shape of a verb.
func RunOr[O any](opts *O, runF func(*O) error, run func(*O) error) error {
	if runF != nil {
		return runF(opts)
	}
	return run(opts)
}

// OrDash is s, or "-" when it is empty: a table's empty cell.
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
