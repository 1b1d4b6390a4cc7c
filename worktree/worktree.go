// Package worktree provisions linked worktrees with go-git, runs their setup
// hooks, inspects them and tears them down without ever losing work.
package worktree

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/internal/names"
)

// BranchPrefix names the branch of each worktree: wt/SLUG.
const BranchPrefix = "wt/"

// metaFile sits in the worktree's admin dir beside git's own files; git
// ignores it, and it goes away with the admin dir.
const metaFile = "agentproto.json"

// ValidateSlug reports why slug cannot name a worktree.
func ValidateSlug(slug string) error {
	if !names.Dashed(slug, 1, 63) {
		return fault.Invalidf("worktree slug %q is not valid: use lowercase letters, digits and dashes (at most 63)", slug)
	}
	return nil
}

// States of a worktree's provisioning.
const (
	StateReady       = "ready"
	StateSetupFailed = "setup-failed"
	// StateAbandoned: provisioning was killed before it finished (see
	// FindAbandoned); only listed, never returned by Load or All.
	StateAbandoned = "abandoned"
)

// Meta is what agentproto records about a worktree it made.
type Meta struct {
	Slug       string `json:"slug"`
	Path       string `json:"path"`
	Branch     string `json:"branch"`
	Base       string `json:"base"`
	BaseCommit string `json:"base_commit"`
	Created    string `json:"created"`
	State      string `json:"state"`
	Failure    string `json:"failure,omitempty"`
	// Checkout says which checkout wrote the files (CheckoutFast or
	// CheckoutGit) and, for git's, why.
	Checkout       string `json:"checkout,omitempty"`
	CheckoutReason string `json:"checkout_reason,omitempty"`
}

func adminDir(repo *gitrepo.Repo, slug string) string {
	return repo.Path("worktrees", slug)
}

func writeMeta(repo *gitrepo.Repo, m *Meta) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(adminDir(repo, m.Slug), metaFile+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(adminDir(repo, m.Slug), metaFile))
}

// Load returns the record of worktree slug.
func Load(repo *gitrepo.Repo, slug string) (*Meta, error) {
	if err := ValidateSlug(slug); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(adminDir(repo, slug), metaFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fault.Wrap(fault.Invalid, missing(slug))
	}
	if err != nil {
		return nil, err
	}
	var m Meta
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("worktree %s: %s is corrupt: %v", slug, metaFile, err)
	}
	return &m, nil
}

// ErrNotFound matches the error Load returns for a slug that has no
// worktree, and only that one: a corrupt one is another error.
var ErrNotFound = errors.New("no such agentproto worktree")

type missing string

func (m missing) Error() string {
	return fmt.Sprintf("no agentproto worktree %q (see git agentproto worktree ls)", string(m))
}

func (missing) Is(target error) bool { return target == ErrNotFound }

// All returns every worktree agentproto made in this repository, by slug.
func All(repo *gitrepo.Repo) ([]*Meta, error) {
	entries, err := os.ReadDir(repo.Path("worktrees"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []*Meta
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(repo.Path("worktrees", e.Name()), metaFile)); err != nil {
			continue // made by git itself, not ours
		}
		m, err := Load(repo, e.Name())
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Slug < out[j].Slug })
	return out, nil
}

// errUnsupported marks repositories go-git cannot provision faithfully.
type unsupportedError struct{ msg string }

func (e *unsupportedError) Error() string {
	return e.msg + "; agentproto does not provision such repositories (use git worktree add)"
}

func unsupported(format string, args ...any) error {
	return fault.Wrap(fault.Refused, &unsupportedError{msg: fmt.Sprintf(format, args...)})
}

// unsafeTree refuses a tree git's own checks refuse: it would write outside
// the worktree, into a .git directory, or not as its author meant.
func unsafeTree(format string, args ...any) error {
	return fault.Refusedf("refusing to check out the base tree: "+format+"; git refuses such trees too (git fsck)", args...)
}
