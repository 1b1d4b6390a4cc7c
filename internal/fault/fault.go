// Package fault classifies errors so that every command maps them to the same
// project-wide exit codes. Packages return fault errors; only the command root
// turns a Kind into a process exit code.
package fault

import (
	"errors"
	"fmt"
)

// Kind is the class of a failure. Its value is the exit code the CLI uses.
type Kind int

const (
	// Failure is any error not classified otherwise (exit 1).
	Failure Kind = 1
	// Invalid is bad usage or bad input: malformed JSON or TOML, unknown
	// fields, unknown ids (exit 2).
	Invalid Kind = 2
	// Conflict is a record id reused with other content, or a similar clash
	// with state already recorded (exit 3).
	Conflict Kind = 3
	// Timeout is a wait that ran out of time (exit 4).
	Timeout Kind = 4
	// Refused is an action denied by policy or authority (exit 5).
	Refused Kind = 5
)

// Error carries a Kind alongside the wrapped error.
type Error struct {
	Kind Kind
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Wrap classifies err. A nil err stays nil.
func Wrap(kind Kind, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Kind: kind, Err: err}
}

// Invalidf returns an Invalid error.
func Invalidf(format string, args ...any) error {
	return &Error{Kind: Invalid, Err: fmt.Errorf(format, args...)}
}

// Conflictf returns a Conflict error.
func Conflictf(format string, args ...any) error {
	return &Error{Kind: Conflict, Err: fmt.Errorf(format, args...)}
}

// Refusedf returns a Refused error.
func Refusedf(format string, args ...any) error {
	return &Error{Kind: Refused, Err: fmt.Errorf(format, args...)}
}

// Timeoutf returns a Timeout error.
func Timeoutf(format string, args ...any) error {
	return &Error{Kind: Timeout, Err: fmt.Errorf(format, args...)}
}

// KindOf reports the Kind of err: the outermost classified error wins, and an
// unclassified error is a Failure.
func KindOf(err error) Kind {
	var fe *Error
	if errors.As(err, &fe) {
		return fe.Kind
	}
	return Failure
}
