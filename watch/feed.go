package watch

import (
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Stamp is a fingerprint of the files the view is drawn from: the ledger's
// refs, the daemon's session records and the selected session's output.
// The view is read again only when the stamp moves.
//
// Git has no notification of a ref update and the daemon writes each
// session's record file on every transition, so the files are the events.
// A stat of each (a few dozen files for a busy run) every PollEvery costs
// microseconds; an inotify watch would need one per nested ref directory,
// added as refs appear, for the same result.
type Stamp uint64

// PollEvery is how often the stamp is taken.
const PollEvery = 250 * time.Millisecond

// Watched names the files of a stamp.
type Watched struct {
	CommonDir string // the repository's common git dir
	Sessions  string // the session store's directory
	Output    string // the selected session's output file, or ""
}

// Take fingerprints the watched files by name, size and modification time.
func (w Watched) Take() Stamp {
	h := fnv.New64a()
	add := func(path string, fi fs.FileInfo) {
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00", path, fi.Size(), fi.ModTime().UnixNano())
	}
	stat := func(path string) {
		if fi, err := os.Stat(path); err == nil {
			add(path, fi)
		}
	}
	if w.CommonDir != "" {
		stat(filepath.Join(w.CommonDir, "packed-refs"))
		walkFiles(filepath.Join(w.CommonDir, "refs", "agentproto"), add)
	}
	if w.Sessions != "" {
		if entries, err := os.ReadDir(w.Sessions); err == nil {
			for _, e := range entries {
				stat(filepath.Join(w.Sessions, e.Name(), "meta.json"))
			}
		}
	}
	if w.Output != "" {
		stat(w.Output)
	}
	return Stamp(h.Sum64())
}

// walkFiles calls add for every regular file under dir, never following a
// symlink (a ref is a file; a link under refs/ is nothing the ledger wrote).
func walkFiles(dir string, add func(string, fs.FileInfo)) {
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			add(path, fi)
		}
		return nil
	})
}
