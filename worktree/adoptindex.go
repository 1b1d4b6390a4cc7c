package worktree

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing/format/index"

	"github.com/agentproto/agentproto/internal/gitrepo"
)

// Adopt makes the index that built s the worktree's own, once s.Tree is
// HEAD's tree, in place of `git reset -- committed` (one git command
// fewer for a checkpoint). It does so only when that is exactly what the
// reset would leave: every entry of the worktree's index outside
// committed must be the kept index's, unflagged, so that nothing staged
// there is lost; anything else leaves the index alone and answers false,
// and the caller resets as before. The kept index also carries the stat
// data git recorded when it built s.Tree, so status need not hash again.
//
// The swap follows git's lock protocol (index.lock, created exclusively,
// renamed over the index: a symlink at either name is never followed).
// The files are held against the kept stat data to the nanosecond after
// the new index is written and before it is put in place: a change before
// the check refuses the swap, and a change after it is at least as new
// as the index file, which git looks at again (racily clean) or sees by
// its time.
func (s *KeptState) Adopt(repo *gitrepo.Repo, m *Meta, committed []string) (bool, error) {
	if len(s.index) == 0 {
		return false, nil
	}
	live := filepath.Join(adminDir(repo, m.Slug), "index")
	lock := live + ".lock"
	f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return false, nil // git holds the index: the caller's reset waits its turn
	}
	adopted := false
	defer func() {
		if !adopted {
			os.Remove(lock)
		}
	}()
	current, err := os.ReadFile(live)
	if err != nil || !indexUnflagged(live) || !sameOutside(current, s.index, committed) {
		f.Close()
		return false, nil
	}
	_, err = f.Write(s.index)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, err
	}
	if !statsHold(m.Path, s.index) {
		return false, nil
	}
	if err := os.Rename(lock, live); err != nil {
		return false, err
	}
	adopted = true
	return true, nil
}

// errDiffers ends the comparison at the first entry that differs.
var errDiffers = errors.New("differs")

// sameOutside tells whether the two indexes hold the same entries (name,
// stage, mode, object, no intent-to-add or skip-worktree flag) for every
// name not in committed.
func sameOutside(current, kept []byte, committed []string) bool {
	skip := make(map[string]bool, len(committed))
	for _, p := range committed {
		skip[p] = true
	}
	type key struct {
		name  string
		stage index.Stage
	}
	entries := func(b []byte) (map[key]*index.Entry, error) {
		var idx index.Index
		if err := index.NewDecoder(bytes.NewReader(b)).Decode(&idx); err != nil {
			return nil, err
		}
		out := make(map[key]*index.Entry, len(idx.Entries))
		for _, e := range idx.Entries {
			if e.IntentToAdd || e.SkipWorktree {
				return nil, errDiffers
			}
			if !skip[e.Name] {
				out[key{e.Name, e.Stage}] = e
			}
		}
		return out, nil
	}
	a, err := entries(current)
	if err != nil {
		return false
	}
	b, err := entries(kept)
	if err != nil || len(a) != len(b) {
		return false
	}
	for k, x := range a {
		y, ok := b[k]
		if !ok || x.Mode != y.Mode || x.Hash != y.Hash {
			return false
		}
	}
	return true
}
