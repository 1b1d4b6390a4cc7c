package worktree

import (
	"bytes"
	"path/filepath"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// statsHold reports whether every file the index lists is, to the
// nanosecond, the file git recorded: the same change time, modification
// time, size and inode. git compares those at a whole second (it is
// built without USE_NSEC), so a file rewritten at its size within the
// second of the last change, its modification time put back, looks the
// same to git add --dry-run; its change time, which no process sets,
// does not look the same here. False for anything this reading is not
// sure of (an index it cannot decode, an entry it does not stat): the
// caller then writes the tree anew.
func statsHold(dir string, kept []byte) bool {
	var idx index.Index
	if err := index.NewDecoder(bytes.NewReader(kept)).Decode(&idx); err != nil {
		return false
	}
	for _, e := range idx.Entries {
		if e.Mode == filemode.Submodule {
			continue // a gitlink's state is its HEAD, which the dry run reads
		}
		if e.Stage != 0 { // go-git names stage 0 nothing (its Merged is 1)
			return false
		}
		var st syscall.Stat_t
		if err := syscall.Lstat(filepath.Join(dir, filepath.FromSlash(e.Name)), &st); err != nil {
			return false
		}
		if uint32(st.Ctim.Sec) != uint32(e.CreatedAt.Unix()) || uint32(st.Ctim.Nsec) != uint32(e.CreatedAt.Nanosecond()) ||
			uint32(st.Mtim.Sec) != uint32(e.ModifiedAt.Unix()) || uint32(st.Mtim.Nsec) != uint32(e.ModifiedAt.Nanosecond()) ||
			uint32(st.Size) != e.Size || uint32(st.Ino) != e.Inode {
			return false
		}
	}
	return true
}
