package worktree

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"os"
	"path/filepath"
	"syscall"

	"github.com/agentproto/agentproto/internal/gitrepo"
)

// The worktree's own index sits in its admin directory, which the
// session's sandbox lets the agent write (git add and commit must work
// there). So it is never where a state tree starts: an entry whose stat
// data matches the file on disk is taken by git as it is, and an agent
// can stage one content and leave another on disk with the same stat data
// (within one second git does not tell apart, or by writing the index
// itself), so that the tree verify records — and checkpoint commits —
// holds what the gate never ran on. The index the checkout wrote is kept
// where the sandbox lets nothing write, and each state tree starts from
// that copy, every entry whose file is not exactly as recorded marked for
// git to read again.

// checkoutIndexDir holds the index the checkout of a worktree wrote, as
// one file named by the commit checked out.
func checkoutIndexDir(repo *gitrepo.Repo, slug string) string {
	return filepath.Join(repo.CommonDir, "agentproto", "worktree-index", slug)
}

// keepCheckoutIndex keeps the index just written for the worktree at
// commit, before anything else has run in it. Not keeping it only costs
// speed: the state tree then hashes every file.
func keepCheckoutIndex(repo *gitrepo.Repo, slug, commit string) {
	dir := checkoutIndexDir(repo, slug)
	os.RemoveAll(dir)
	b, err := os.ReadFile(filepath.Join(adminDir(repo, slug), "index"))
	if err != nil || WriteReplacing(dir, commit, b) != nil {
		os.RemoveAll(dir)
	}
}

// dropCheckoutIndex forgets the kept index of a worktree removed.
func dropCheckoutIndex(repo *gitrepo.Repo, slug string) {
	os.RemoveAll(checkoutIndexDir(repo, slug))
}

// stateBase is the index a state tree of the worktree starts from: the
// checkout's, each entry whose file differs from its stat data (to the
// nanosecond) smudged as git smudges a racily clean entry (size 0), so
// that git reads that file again; and the commit it was checked out at.
// False when there is none, or it is not an index this reading knows:
// the caller starts from HEAD's tree.
func stateBase(repo *gitrepo.Repo, m *Meta) (index []byte, commit string, ok bool) {
	dir := checkoutIndexDir(repo, m.Slug)
	kept, err := os.ReadDir(dir)
	if err != nil || len(kept) != 1 || !kept[0].Type().IsRegular() {
		return nil, "", false
	}
	b, err := os.ReadFile(filepath.Join(dir, kept[0].Name()))
	if err != nil {
		return nil, "", false
	}
	index, ok = smudgeChanged(b, m.Path)
	return index, kept[0].Name(), ok
}

// smudgeChanged returns a copy of index b (versions 2 to 4, SHA-1) with
// the size of every entry whose file under dir is not as recorded set to
// zero, and the checksum made anew.
func smudgeChanged(b []byte, dir string) ([]byte, bool) {
	if len(b) < sha1.Size {
		return nil, false
	}
	end := len(b) - sha1.Size
	if sum := sha1.Sum(b[:end]); !bytes.Equal(sum[:], b[end:]) {
		return nil, false
	}
	out := bytes.Clone(b)
	_, ok := walkIndex(b, func(at int, _ uint16, name []byte) bool {
		if !sameStat(b[at:at+indexEntryFixed], filepath.Join(dir, filepath.FromSlash(string(name)))) {
			binary.BigEndian.PutUint32(out[at+36:at+40], 0)
		}
		return true
	})
	if !ok {
		return nil, false
	}
	sum := sha1.Sum(out[:end])
	copy(out[end:], sum[:])
	return out, true
}

// sameStat holds an entry's stat data (ctime, mtime, inode, size; the
// first 40 bytes of its fixed part) against lstat of its file.
func sameStat(e []byte, path string) bool {
	var st syscall.Stat_t
	if syscall.Lstat(path, &st) != nil {
		return false
	}
	u32 := func(at int) uint32 { return binary.BigEndian.Uint32(e[at : at+4]) }
	return u32(0) == uint32(st.Ctim.Sec) && u32(4) == uint32(st.Ctim.Nsec) &&
		u32(8) == uint32(st.Mtim.Sec) && u32(12) == uint32(st.Mtim.Nsec) &&
		u32(20) == uint32(st.Ino) && u32(36) == uint32(st.Size)
}

// WriteReplacing writes b as dir/name: under a temporary name first,
// renamed into place, so that a reader finds it whole and a symlink at
// name is replaced, never followed.
func WriteReplacing(dir, name string, b []byte) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "new-")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, name))
}
