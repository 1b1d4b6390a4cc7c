package gitstore

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// errIndexDamaged marks an index that cannot be read as the cache it is:
// a file bbolt refuses, pages past its end, a page that is not what its
// parent says (bbolt panics on those), an entry that does not decode.
var errIndexDamaged = errors.New("the ledger index is damaged")

// damaged wraps what was found with errIndexDamaged.
func damaged(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errIndexDamaged, fmt.Sprintf(format, args...))
}

// isBoltDamage reports whether an error from bolt.Open means the file is
// not a usable database, as opposed to one held, unreadable or on a full
// disk.
func isBoltDamage(err error) bool {
	return errors.Is(err, bolt.ErrInvalid) || errors.Is(err, bolt.ErrVersionMismatch) ||
		errors.Is(err, bolt.ErrChecksum) || errors.Is(err, bolt.ErrInvalidMapping) ||
		strings.Contains(err.Error(), "file size too small")
}

// guard runs fn, an operation on the index, so that damage cannot crash
// the process: memory faults on the mapped file (a truncated index) become
// panics, and panics raised while bbolt or the ledger walk the index (its
// assertions on pages that are not what they should be) become
// errIndexDamaged. A panic in a caller's callback is not the index's: it
// goes on.
func (l *Ledger) guard(c *call, fn func() error) (err error) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		r := recover()
		debug.SetPanicOnFault(old)
		if r == nil {
			return
		}
		if c.inCallback {
			c.inCallback = false
			panic(r)
		}
		err = damaged("%v", r)
	}()
	return fn()
}

// setAsideIndex moves a damaged index out of the way, keeping it for a
// look (it holds what the ledger holds, so only its owner may read it), and
// says so. The next open builds a new one from git.
func (l *Ledger) setAsideIndex(warn *Warnings, cause error) error {
	path := indexPath(l.repo.CommonDir)
	aside := path + ".damaged"
	if err := os.Rename(path, aside); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%v; moving it aside failed: %w (delete %s to rebuild it)", cause, err, path)
	}
	os.Chmod(aside, 0o600)
	warn.add(fmt.Sprintf("%v; moved it to %s and rebuilt it from git", cause, aside))
	return nil
}

// call is the state of one operation on the index that withIndex and
// guard need: whether an event was handed to the caller, and whether the
// caller's callback is running. It lives in the call, never on the Ledger,
// which several goroutines use at once.
type call struct{ delivered, inCallback bool }

// withIndex runs op, and runs it once more on an index rebuilt from git if
// the first run found the index damaged before anything was handed to a
// caller. Damage found after that is an error: what was handed on is
// incomplete, and running again reads the rebuilt index.
func (l *Ledger) withIndex(warn *Warnings, op func(c *call) error) error {
	c := &call{}
	err := l.guard(c, func() error { return op(c) })
	if !errors.Is(err, errIndexDamaged) {
		return err
	}
	if serr := l.setAsideIndex(warn, err); serr != nil {
		return serr
	}
	if c.delivered {
		if warn != nil && len(*warn) > 0 {
			w := *warn
			w[len(w)-1] = strings.Replace(w[len(w)-1], "and rebuilt it from git", "; the next command rebuilds it from git", 1)
		}
		return fmt.Errorf("the ledger index was damaged while it was being read; the events read are incomplete: run the command again")
	}
	c = &call{}
	return l.guard(c, func() error { return op(c) })
}
