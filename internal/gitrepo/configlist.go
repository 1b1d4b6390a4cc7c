package gitrepo

import "sync"

// A configuration listing started ahead, per repository, for the next
// ConfigList there to take.
var (
	aheadMu sync.Mutex
	ahead   = map[Repo]*listing{}
)

type listing struct {
	done chan struct{}
	out  []byte
	err  error
}

// ConfigList is `git config -z --list` in r: the effective configuration
// as git itself reads it. A listing PrefetchConfigList started is taken
// once; every other call asks git then.
func (r *Repo) ConfigList() ([]byte, error) {
	aheadMu.Lock()
	l := ahead[*r]
	delete(ahead, *r)
	aheadMu.Unlock()
	if l == nil {
		return r.Git("config", "-z", "--list")
	}
	<-l.done
	return l.out, l.err
}

// PrefetchConfigList starts the next ConfigList in r now, so that a
// command that will need it soon does not wait for git then (a worktree's
// checkout reads it; dispatch starts it while it reads the plan and the
// ledger). Only the next call takes it, so a configuration changed later
// is read afresh. The function it returns drops the listing if no call
// took it: a caller that may end without one (a dispatch that stops
// early) calls it as it returns, so that a process that lives on (the MCP
// server) never hands an old listing to a later checkout. A second start
// while one waits changes nothing, and its drop does nothing either.
func (r *Repo) PrefetchConfigList() (drop func()) {
	l := &listing{done: make(chan struct{})}
	aheadMu.Lock()
	if ahead[*r] != nil {
		aheadMu.Unlock()
		return func() {}
	}
	ahead[*r] = l
	aheadMu.Unlock()
	go func() {
		defer close(l.done)
		l.out, l.err = r.Git("config", "-z", "--list")
	}()
	key := *r
	return func() {
		aheadMu.Lock()
		if ahead[key] == l {
			delete(ahead, key)
		}
		aheadMu.Unlock()
	}
}
