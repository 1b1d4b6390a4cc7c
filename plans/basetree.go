package plans

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/agentproto/agentproto/internal/gitrepo"
)

// BaseTree is what a plan check reads of the base commit: every path of its
// tree and, for the symlinks among them, the target text git stores.
type BaseTree struct {
	Files []string
	Links map[string]string
}

// ReadBaseTree lists the tree of commit with the git CLI.
func ReadBaseTree(repo *gitrepo.Repo, commit string) (*BaseTree, error) {
	entries, err := repo.ListTree(commit)
	if err != nil {
		return nil, err
	}
	bt := &BaseTree{Files: []string{}, Links: map[string]string{}}
	var linkOIDs, linkPaths []string
	for _, e := range entries {
		if e.Type == "commit" {
			continue // submodules are not files of this tree
		}
		bt.Files = append(bt.Files, e.Path)
		if e.IsSymlink() {
			linkOIDs, linkPaths = append(linkOIDs, e.ID), append(linkPaths, e.Path)
		}
	}
	if len(linkOIDs) == 0 {
		return bt, nil
	}
	blobs, err := repo.GitInput([]byte(strings.Join(linkOIDs, "\n")+"\n"), "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	targets, err := readBatch(bytes.NewReader(blobs), len(linkOIDs))
	if err != nil {
		return nil, err
	}
	for i, p := range linkPaths {
		bt.Links[p] = targets[i]
	}
	return bt, nil
}

// readBatch reads n objects of `git cat-file --batch` output.
func readBatch(r io.Reader, n int) ([]string, error) {
	br := bufio.NewReader(r)
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		head, err := br.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("reading symlink targets: %w", err)
		}
		f := strings.Fields(head)
		if len(f) != 3 {
			return nil, fmt.Errorf("reading symlink targets: unexpected %q", strings.TrimSpace(head))
		}
		size, err := strconv.Atoi(f[2])
		if err != nil || size < 0 || size > 1<<20 {
			return nil, fmt.Errorf("reading symlink targets: bad size in %q", strings.TrimSpace(head))
		}
		body := make([]byte, size+1) // and the newline after it
		if _, err := io.ReadFull(br, body); err != nil {
			return nil, fmt.Errorf("reading symlink targets: %w", err)
		}
		out = append(out, string(body[:size]))
	}
	return out, nil
}
