package daemon

import (
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/plugins/host"
	"github.com/agentproto/agentproto/sandbox"
	"github.com/agentproto/agentproto/sessions"
)

// Daemon owns the adapter plugins of one repository's sessions. Its parts:
// server.go answers the socket, state.go is the session state machine,
// lifecycle.go starts and ends the daemon and its sessions, follow.go turns
// adapter events into transitions, wait.go blocks until something changes,
// registry.go keeps the live sessions and policyengine.go the policies.
type Daemon struct {
	repo   *gitrepo.Repo
	store  store
	ledger *gitstore.Ledger
	// journal writes the events the daemon records (journal.go).
	journal  *journal
	idleExit time.Duration
	log      *os.File

	// registry is the live sessions, under its own lock (d.mu);
	// policies are the attached policies, under theirs.
	registry
	policies *policyEngine
	ln       net.Listener
	guard    *guardLink
	actions  actionRuns // policy firings and the commands they run
	// support is what the sandbox can use on this machine (probeOnce).
	// token authorises control operations (token.go).
	token     string
	probeOnce sync.Once
	support   sandbox.Support
	// book is every session's spend, for the budgets wider than one.
	book book
}

// live is a session with its plugin.
type live struct {
	rec *sessions.Record
	// client is the adapter's current process: a released session
	// (release.go) gets a new one on its next prompt. cli reads it.
	client atomic.Pointer[host.Client]
	out    *os.File
	turn   turn
	// resumable is what a new adapter process needs to go on with the
	// session, under d.mu (release.go).
	resumable
	// ending: the daemon is ending the plugin and will record why; the
	// event stream breaking then is no news of its own.
	ending bool
	// errLog is the agent's own error log, read for a diagnosis when a
	// turn goes wrong (nil: the profile names none).
	errLog *errorLog
	// limits are the prices and budgets it runs under (spend.go);
	// stopped: a budget stopped it.
	limits  limits
	stopped bool
	// prompted counts the prompts the adapter took whose turn has not
	// started yet: a wait for the turn's end waits for them too, however
	// late the adapter's news of the start arrives.
	prompted int
}

// NewDaemon prepares a daemon; Run serves it.
func NewDaemon(repo *gitrepo.Repo, idleExit time.Duration, log *os.File) *Daemon {
	d := &Daemon{repo: repo, store: newStore(repo.CommonDir), ledger: gitstore.Open(repo, gitstore.Options{}),
		idleExit: idleExit, log: log, policies: newPolicyEngine()}
	d.journal = newJournal(d.ledger, d.logf)
	d.registry.init()
	return d
}

func (d *Daemon) logf(format string, args ...any) {
	if d.log != nil {
		fmt.Fprintf(d.log, "%s %s\n", time.Now().UTC().Format(time.RFC3339), fmt.Sprintf(format, args...))
	}
}

// ErrRunning means another daemon already serves the repository.
var ErrRunning = errors.New("a sessions daemon already runs for this repository")

// get returns a live session, or says why there is none.
func (d *Daemon) get(id string) (*live, error) {
	if err := sessions.ValidateID(id); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	l := d.sessions[id]
	if l == nil {
		if _, err := d.store.Load(id); err == nil {
			return nil, fault.Invalidf("session %s is not live in this daemon (see sessions ls)", id)
		}
		return nil, fault.Invalidf("no session %s", id)
	}
	return l, nil
}

// snapshot copies a record under the lock, for answers and for saving.
func (d *Daemon) snapshot(r *sessions.Record) *sessions.Record {
	d.mu.Lock()
	defer d.mu.Unlock()
	c := *r
	return &c
}

// state reads a session's state under the lock.
func (d *Daemon) state(l *live) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return l.rec.State
}
