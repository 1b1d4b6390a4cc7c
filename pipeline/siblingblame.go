package pipeline

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentproto/agentproto/sandbox"
	"github.com/agentproto/agentproto/sessions"
	"github.com/agentproto/agentproto/worktree"
)

// quietSince reports whether r did nothing from t on: it ended, or its
// turn settled, before t. A settled agent waits for a prompt.
func quietSince(r *sessions.Record, t time.Time) bool {
	return (sessions.Terminal(r.State) || r.State == sessions.StateSettled) && r.LastActivity.Before(t)
}

// blame lays a change found by the sibling snapshot at a WP's door, or
// says why it cannot.
type blame struct {
	wp, project string
	own         *sessions.Record // the WP's session; nil when unreadable
	all         []*sessions.Record
	now         time.Time
}

func (e *Env) newBlame(wp string, d Dispatch) *blame {
	store := sessions.OpenView(e.Repo.CommonDir)
	b := &blame{wp: wp, project: e.Project.Name, now: time.Now()}
	b.own, _ = store.Load(d.Session)
	b.all, _ = store.All()
	return b
}

// quiet reports whether s's session did nothing since t.
func (b *blame) quiet(s, session string, t time.Time) bool {
	if session == "" {
		return true
	}
	for _, r := range b.all {
		if r.ID == session {
			return quietSince(r, t)
		}
	}
	return false
}

// activeAt reports whether r could act at t, a reflog time (whole
// seconds): started by then, and not ended or settled before it.
func activeAt(r *sessions.Record, t time.Time) bool {
	return !r.Created.After(t.Add(time.Second)) && !quietSince(r, t)
}

// latest is the later of a reflog time, whole seconds, and the snapshot's
// start, which the entry follows in the reflog: the move was made after
// both.
func latest(at, start time.Time) time.Time {
	if start.After(at) {
		return start
	}
	return at
}

// branchMover says why a move of s's branch at t, made outside s's
// worktree, is not the WP's; "" when it is. The sandbox lets every session
// move a wt/ branch, so the WP's session must have been at work then and
// no other session but s's own.
func (b *blame) branchMover(s string, t time.Time) string {
	if b.own == nil {
		return "the session of " + b.wp + " cannot be read"
	}
	if !activeAt(b.own, t) {
		return fmt.Sprintf("not by %s: its session %s was not at work then", b.wp, b.own.ID)
	}
	sibling := Slug(b.project, s)
	for _, r := range b.all {
		if r.ID != b.own.ID && r.Worktree != sibling && activeAt(r, t) {
			return fmt.Sprintf("not shown to be %s's: session %s (%s) was at work then too", b.wp, r.ID, orDash(r.Label))
		}
	}
	return ""
}

// writer says why a write made since t where the sandbox lets no session
// write (another worktree, the ledger's refs) is not the WP's; "" when it
// is: the WP's session ran unconfined, and no other unconfined session was
// at work meanwhile.
func (b *blame) writer(t time.Time) string {
	if b.own == nil {
		return "the session of " + b.wp + " cannot be read"
	}
	if b.own.Sandbox == sandbox.KindLandlock {
		return fmt.Sprintf("not by %s: its session %s ran in the sandbox, which cannot write there", b.wp, b.own.ID)
	}
	for _, r := range b.all {
		if r.ID == b.own.ID || r.Sandbox == sandbox.KindLandlock || r.Created.After(b.now) || quietSince(r, t) {
			continue
		}
		return fmt.Sprintf("not shown to be %s's: session %s (%s) also ran unconfined meanwhile", b.wp, r.ID, orDash(r.Label))
	}
	return ""
}

// worktreeWriter is writer for a change found in a sibling's worktree
// against a status that stands from at. One taken by an earlier start of
// the wave (at before start) leaves a longer time in which someone who
// is no session — a setup hook, an editor — may have written: the change
// is the WP's only when dated says every path changed is dated after its
// own start too.
func (b *blame) worktreeWriter(at, start time.Time, dated func() bool) string {
	why := b.writer(at)
	if why == "" && at.Before(start) && !dated() {
		why = fmt.Sprintf("not shown to be %s's: the status it is compared with is from before its session started, and not every change is dated after", b.wp)
	}
	return why
}

// move is one entry of a branch's reflog.
type move struct {
	old, new string
	at       time.Time
}

// reflog reads a reflog file's entries, oldest first; none when it is
// absent.
func reflog(path string) []move {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out []move
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		head, _, _ := strings.Cut(sc.Text(), "\t")
		f := strings.Fields(head)
		if len(f) < 4 {
			continue
		}
		sec, err := strconv.ParseInt(f[len(f)-2], 10, 64)
		if err != nil {
			continue
		}
		out = append(out, move{old: f[0], new: f[1], at: time.Unix(sec, 0)})
	}
	return out
}

// outsideMoves are the entries of m's branch reflog after the first
// count (the snapshot's) that m's own HEAD log does not hold: moves made
// from outside its worktree. A commit, an amend, a reset or a checkpoint in
// the worktree goes through its HEAD, which git logs with the branch.
func (e *Env) outsideMoves(m *worktree.Meta, count string) []move {
	n, err := strconv.Atoi(count)
	entries := reflog(branchLog(e.Repo.CommonDir, m.Branch))
	if err != nil || n > len(entries) {
		n = 0 // the reflog was expired or rewritten: every entry is looked at
	}
	head := map[[2]string]bool{}
	for _, h := range reflog(filepath.Join(worktree.Repo(e.Repo, m).GitDir, "logs", "HEAD")) {
		head[[2]string{h.old, h.new}] = true
	}
	var out []move
	for _, mv := range entries[n:] {
		if mv.old != mv.new && !head[[2]string{mv.old, mv.new}] {
			out = append(out, mv)
		}
	}
	return out
}

// ownLedgerRef is this clone's writer ref; "" before it has one or when
// the store is not the git ledger.
func (e *Env) ownLedgerRef() (string, error) {
	l, ok := e.Ledger.(interface{ WriterRef() (string, error) })
	if !ok {
		return "", nil
	}
	return l.WriterRef()
}

// handMadeSince lists what was committed on the ledger ref after tip that
// the pipeline did not write (gitstore's UnsealedSince).
func (e *Env) handMadeSince(tip string) []string {
	l, ok := e.Ledger.(interface {
		UnsealedSince(string) ([]string, error)
	})
	if !ok {
		return nil
	}
	found, err := l.UnsealedSince(tip)
	if err != nil {
		return []string{fmt.Sprintf("(the ledger ref cannot be read: %v)", err)}
	}
	return found
}
