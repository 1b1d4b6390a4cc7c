package worktree

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/agentproto/agentproto/internal/gitobj"
	"github.com/agentproto/agentproto/internal/testgit"
)

// layoutNames are the names fuzzed layouts are made of: plain ones and
// the ones git refuses or that collide.
var layoutNames = []string{"h", "a", "H", "h.x", "h-x", ".git", ".GIT", "..", ".", "git~1", ".gitmodules", "x/y", "", "sub"}

// layoutTargets are where fuzzed symlinks point: out of the worktree, to
// its parent, to each other.
var layoutTargets []string

// buildLayout turns data into trees stored in st, returning the top tree:
// each pair of bytes picks a name and a kind (file, executable, symlink,
// directory opening a level, end of a level), entries kept in the order
// given, duplicates and all.
func buildLayout(t *testing.T, st *filesystem.Storage, data []byte) plumbing.Hash {
	type level struct {
		name string // in its parent, once closed
		buf  bytes.Buffer
	}
	stack := []*level{{}}
	blob := func(content string) plumbing.Hash {
		o := st.NewEncodedObject()
		o.SetType(plumbing.BlobObject)
		w, _ := o.Writer()
		w.Write([]byte(content))
		w.Close()
		h, err := st.SetEncodedObject(o)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	store := func(l *level) plumbing.Hash {
		o := st.NewEncodedObject()
		o.SetType(plumbing.TreeObject)
		w, _ := o.Writer()
		w.Write(l.buf.Bytes())
		w.Close()
		h, err := st.SetEncodedObject(o)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	add := func(l *level, mode, name string, h plumbing.Hash) {
		l.buf.WriteString(mode + " " + name + "\x00")
		l.buf.Write(h[:])
	}
	for i := 0; i+1 < len(data) && i < 64; i += 2 {
		name := layoutNames[int(data[i])%len(layoutNames)]
		top := stack[len(stack)-1]
		switch data[i+1] % 6 {
		case 0:
			add(top, "100644", name, blob("file "+name+"\n"))
		case 1:
			add(top, "100755", name, blob("#!/bin/sh\n"))
		case 2:
			target := layoutTargets[int(data[i+1]/6)%len(layoutTargets)]
			add(top, "120000", name, blob(target))
		case 3, 4:
			if len(stack) < 6 {
				stack = append(stack, &level{name: name})
			}
		case 5:
			if len(stack) > 1 {
				l := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				add(stack[len(stack)-1], "40000", l.name, store(l))
			}
		}
	}
	for len(stack) > 1 {
		l := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		add(stack[len(stack)-1], "40000", l.name, store(l))
	}
	return store(stack[0])
}

// FuzzCheckoutLayout: whatever trees a commit holds, the checkout either
// refuses before writing anything, or writes every file of the plan
// inside the worktree, with no symlink on the way to any of them, and
// nothing ever appears where symlinks point outside.
func FuzzCheckoutLayout(f *testing.F) {
	f.Add([]byte{0, 2, 0, 3, 0, 0, 0, 5})   // symlink h, then directory h/h
	f.Add([]byte{5, 3, 1, 0, 1, 5, 1, 0})   // .git/a
	f.Add([]byte{13, 3, 0, 2, 0, 5, 1, 1})  // sub/h -> outside, a
	f.Add([]byte{1, 0, 2, 0, 3, 1, 13, 2})  // a, H, h.x, sub -> ...
	f.Add([]byte{0, 3, 1, 0, 0, 5, 0, 8})   // h/a, then symlink h
	f.Add([]byte{12, 0, 11, 0, 7, 3, 1, 0}) // empty name, x/y, ..
	testgit.Isolate(f)
	repoDir := f.TempDir()
	testgit.Run(f, repoDir, "init", "-q", "--bare", "repo.git")
	common := filepath.Join(repoDir, "repo.git")
	outside := f.TempDir()
	layoutTargets = []string{outside, filepath.Join(outside, "x"), "..", "../..", "h", "sub", "."}
	f.Fuzz(func(t *testing.T, data []byte) {
		st := openStorage(common)
		defer st.Close()
		tree := buildLayout(t, st, data)
		commit := &object.Commit{Message: "layout", TreeHash: tree}
		o := st.NewEncodedObject()
		if err := commit.Encode(o); err != nil {
			t.Fatal(err)
		}
		ch, err := st.SetEncodedObject(o)
		if err != nil {
			t.Fatal(err)
		}
		packs := gitobj.OpenPackSet(common)
		defer packs.Close()
		r := gitobj.NewReader(packs)
		defer r.Close()
		plan, err := planTree(&packStorer{Storage: st, r: r}, ch)
		root := t.TempDir()
		if err == nil {
			_, err = checkoutTree(st, packs, common, root, plan, make(chan struct{}))
			if err != nil {
				t.Fatalf("a tree accepted by the rules failed to check out: %v", err)
			}
			for _, e := range plan.files {
				requireNoSymlinkOnTheWay(t, root, e.path)
			}
		} else if entries, _ := os.ReadDir(root); len(entries) > 0 {
			t.Fatalf("refused (%v) but wrote %v", err, entries)
		}
		if entries, _ := os.ReadDir(outside); len(entries) > 0 {
			t.Fatalf("written outside the worktree: %v", entries)
		}
	})
}

// requireNoSymlinkOnTheWay: every directory leading to rel under root is
// a real directory, and rel itself exists.
func requireNoSymlinkOnTheWay(t *testing.T, root, rel string) {
	t.Helper()
	parts := strings.Split(rel, "/")
	p := root
	for i, part := range parts {
		p = filepath.Join(p, part)
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		if i < len(parts)-1 && fi.Mode()&fs.ModeSymlink != 0 {
			t.Fatalf("%s: written through the symlink %s", rel, p)
		}
	}
}
