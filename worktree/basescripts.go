package worktree

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/internal/repopath"
)

// A worktree checked out at a work package's checkpoint holds that
// package's versions of the files its hooks run, and the hooks were trusted
// with the base's. The hooks run the base's bytes instead: for the length
// of the setup run, each such file that differs is replaced by the base's
// blob, and the checkpoint's is put back as soon as the hooks are done.
//
// Why swap in place rather than run the hooks elsewhere: a setup hook's job
// is to prepare this worktree (install into it, generate in it), so it has
// to run here, on the checkpoint's tree; only what it runs must be the
// base's. Everything is written through an os.Root with no symlink on the
// way, and only once no hook process is left (the launcher ends them all),
// so nothing the hook left behind can steer the restore outside the
// worktree.

// scriptSwap is one file a hook runs whose checkpoint version differs from
// the base's; an empty oid is a file absent on that side.
type scriptSwap struct {
	path                string
	baseMode, baseOID   string
	checkMode, checkOID string
}

// nullOID is how diff-tree names the absent side.
func absent(oid string) bool { return strings.Trim(oid, "0") == "" }

// baseScriptSwaps lists the files the hooks of h (trusted at h.Commit) run
// that differ at checkout: the scripts and directories the trust check
// follows, and the paths the commands name that the base lacks. A file the
// base does not have is not trusted, and so refused by name: there are no
// base bytes to run in its place.
func baseScriptSwaps(repo *gitrepo.Repo, h *Hooks, checkout string) ([]scriptSwap, error) {
	if h.Commit == "" || h.Commit == checkout {
		return nil, nil
	}
	seen := map[string]bool{}
	var paths []string
	for p := range h.Scripts {
		paths = append(paths, strings.TrimSuffix(p, "/"))
	}
	paths = append(paths, h.named...)
	var specs []string
	for _, p := range paths {
		if !seen[p] {
			seen[p] = true
			specs = append(specs, p)
		}
	}
	if len(specs) == 0 {
		return nil, nil
	}
	sort.Strings(specs)
	out, err := repo.Git(append([]string{"diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", h.Commit, checkout, "--"}, repopath.Pathspecs(specs)...)...)
	if err != nil {
		return nil, err
	}
	var swaps []scriptSwap
	var added, gitlinks []string
	recs := bytes.Split(out, []byte{0})
	for i := 0; i+1 < len(recs); i += 2 {
		f := strings.Fields(strings.TrimPrefix(string(recs[i]), ":"))
		if len(f) != 5 {
			continue
		}
		s := scriptSwap{path: string(recs[i+1]), baseMode: f[0], checkMode: f[1], baseOID: f[2], checkOID: f[3]}
		switch {
		case s.baseMode == "160000" || s.checkMode == "160000":
			gitlinks = append(gitlinks, s.path)
		case absent(s.baseOID):
			added = append(added, s.path)
		default:
			swaps = append(swaps, s)
		}
	}
	if len(added) > 0 || len(gitlinks) > 0 {
		why := ""
		if len(added) > 0 {
			why = fmt.Sprintf("%s not at the base, so never trusted", strings.Join(added, ", "))
		}
		if len(gitlinks) > 0 {
			if why != "" {
				why += "; "
			}
			why += fmt.Sprintf("%s a submodule whose commit changed", strings.Join(gitlinks, ", "))
		}
		return nil, &HookError{Phase: "setup", Command: strings.Join(h.Setup, "; "), Err: fmt.Errorf(
			"what it runs at %.12s has no trusted version at %.12s (%s): the hooks do not run it; review the change, then trust the hooks as of that commit (git agentproto trust) or provision from the trusted base",
			checkout, h.Commit, why)}
	}
	return swaps, nil
}

// swapIn writes the base's version of every swapped file into the
// worktree at dir.
func swapIn(repo *gitrepo.Repo, dir string, swaps []scriptSwap) error {
	return placeAll(repo, dir, swaps, func(s scriptSwap) (string, string) { return s.baseMode, s.baseOID })
}

// swapOut puts the checkpoint's version of every swapped file back.
func swapOut(repo *gitrepo.Repo, dir string, swaps []scriptSwap) error {
	return placeAll(repo, dir, swaps, func(s scriptSwap) (string, string) { return s.checkMode, s.checkOID })
}

func placeAll(repo *gitrepo.Repo, dir string, swaps []scriptSwap, side func(scriptSwap) (string, string)) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	for _, s := range swaps {
		mode, oid := side(s)
		if err := place(repo, root, s.path, mode, oid); err != nil {
			return fmt.Errorf("%s: %w", s.path, err)
		}
	}
	return nil
}

// place makes path under root hold blob oid with git mode mode, or nothing
// when oid is absent. Whatever is there (a file, a symlink, a directory a
// hook made) is removed first, never followed; a symlink or a file on the
// way to it is refused.
func place(repo *gitrepo.Repo, root *os.Root, path, mode, oid string) error {
	rel := filepath.FromSlash(path)
	if err := plainParents(root, path); err != nil {
		return err
	}
	if err := root.RemoveAll(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if absent(oid) {
		return nil
	}
	b, err := repo.BlobByID(oid)
	if err != nil {
		return err
	}
	if d := filepath.Dir(rel); d != "." {
		if err := root.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if mode == "120000" {
		return root.Symlink(string(b), rel)
	}
	perm := os.FileMode(0o644)
	if mode == "100755" {
		perm = 0o755
	}
	f, err := root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// plainParents refuses a path whose directories on the way are not all
// real directories (a symlink, even one staying inside, or a file).
func plainParents(root *os.Root, path string) error {
	i := strings.LastIndexByte(path, '/')
	if i < 0 {
		return nil
	}
	segs := strings.Split(path[:i], "/")
	for n := range segs {
		sub := strings.Join(segs[:n+1], "/")
		fi, err := root.Lstat(filepath.FromSlash(sub))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s is not a plain directory; nothing is written through it", sub)
		}
	}
	return nil
}
