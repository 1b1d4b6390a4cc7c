package pipeline

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/internal/repopath"
)

// Wiring statuses.
const (
	WiringApplied    = "applied"
	WiringPresent    = "present"
	WiringWouldApply = "would-apply" // dry run
)

// maxWiredFile bounds a shared file consolidate reads to add a line.
const maxWiredFile = 64 << 20

// checkWiringOnDisk refuses a wiring target that is, or lies beneath, a
// symlink or anything but directories and one regular file: consolidate
// writes only plain files inside the worktree. A path that does not exist
// yet is fine; it is made.
func checkWiringOnDisk(root *os.Root, file string) error {
	return repopath.CheckPlain(root, file)
}

// checkWiringInTree refuses a wiring target that is, or lies beneath, a
// symlink in the tree of commit: the dry run's view of what a merge of
// that commit would put on disk.
func checkWiringInTree(repo *gitrepo.Repo, commit, file string) error {
	segs := strings.Split(file, "/")
	args := []string{"ls-tree", "-z", "--full-tree", commit, "--"}
	for i := range segs {
		args = append(args, ":(literal)"+strings.Join(segs[:i+1], "/"))
	}
	out, err := repo.Git(args...)
	if err != nil {
		return err
	}
	for _, rec := range strings.Split(string(out), "\x00") {
		meta, path, ok := strings.Cut(rec, "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta)
		switch {
		case len(f) == 3 && f[0] == "120000":
			return fmt.Errorf("%s is a symlink at %.12s; wiring never writes through one", path, commit)
		case len(f) == 3 && path == file && f[1] != "blob",
			strings.HasPrefix(path, file+"/"):
			return fmt.Errorf("%s is not a regular file at %.12s", file, commit)
		}
	}
	return nil
}

// hasLine reports whether text holds line, ignoring surrounding blanks.
func hasLine(text []byte, line string) bool {
	want := strings.TrimSpace(line)
	for _, l := range bytes.Split(text, []byte("\n")) {
		if strings.TrimSpace(string(l)) == want {
			return true
		}
	}
	return false
}

// applyWiring appends each line to its file under root unless the file has
// it already. Every write goes through root (it cannot leave the worktree)
// and is refused on a symlink; the file keeps its mode.
func applyWiring(root *os.Root, wiring []AppliedWiring, c *Consolidation) ([]string, error) {
	changed := map[string]bool{}
	for _, w := range wiring {
		if err := checkWiringOnDisk(root, w.File); err != nil {
			return nil, err
		}
		name := filepath.FromSlash(w.File)
		b, mode, err := readWired(root, name)
		if err != nil {
			return nil, err
		}
		w.Status = WiringPresent
		if !hasLine(b, w.Line) {
			if len(b) > 0 && b[len(b)-1] != '\n' {
				b = append(b, '\n')
			}
			b = append(b, w.Line+"\n"...)
			if err := writeWired(root, name, b, mode); err != nil {
				return nil, err
			}
			w.Status = WiringApplied
			changed[w.File] = true
		}
		c.Wiring = append(c.Wiring, w)
	}
	files := make([]string, 0, len(changed))
	for f := range changed {
		files = append(files, f)
	}
	sort.Strings(files)
	return files, nil
}

func readWired(root *os.Root, name string) ([]byte, fs.FileMode, error) {
	f, err := root.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0o644, nil
	}
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("%s is not a regular file", name)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxWiredFile+1))
	if err != nil {
		return nil, 0, err
	}
	if len(b) > maxWiredFile {
		return nil, 0, fmt.Errorf("%s is larger than %d MiB; wiring edits small shared files", name, maxWiredFile>>20)
	}
	return b, fi.Mode().Perm(), nil
}

// writeWired replaces name under root by a temporary file renamed over it,
// so that a crash leaves the old file or the new one, never half of it.
func writeWired(root *os.Root, name string, b []byte, mode fs.FileMode) error {
	if dir := filepath.Dir(name); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	tmp := name + ".agentproto-wiring"
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Chmod(tmp, mode)
	}
	if err == nil {
		err = root.Rename(tmp, name)
	}
	if err != nil {
		root.Remove(tmp)
	}
	return err
}
