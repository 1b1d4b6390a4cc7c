package acp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentproto/agentproto/perimeter"
)

// Perimeter decides which paths of a worktree the agent may write. Globs
// are matched with the plan's own matcher, so what is refused here and
// what verify flags later never disagree.
type Perimeter struct {
	root     string // the worktree as given
	realRoot string // the worktree with symlinks resolved
	all      bool   // no WP: the whole worktree
	allow    []perimeter.Glob
	deny     []perimeter.Glob
}

// NewPerimeter reads spec (the value of perimeter.Env, "" for none) for the
// worktree dir. A malformed spec is an error: a session never runs
// unconfined because its perimeter could not be read.
func NewPerimeter(dir, spec string) (*Perimeter, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	p := &Perimeter{root: filepath.Clean(dir), realRoot: real}
	if strings.TrimSpace(spec) == "" {
		p.all = true
		return p, nil
	}
	var s perimeter.Spec
	dec := json.NewDecoder(strings.NewReader(spec))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%s is not valid JSON {\"allow\": [...], \"deny\": [...]}: %v", perimeter.Env, err)
	}
	for _, g := range s.Allow {
		pg, err := perimeter.ParseGlob(g)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", perimeter.Env, err)
		}
		p.allow = append(p.allow, pg)
	}
	for _, g := range s.Deny {
		pg, err := perimeter.ParseGlob(g)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", perimeter.Env, err)
		}
		p.deny = append(p.deny, pg)
	}
	return p, nil
}

// Bounded reports whether a work package's perimeter was given, rather
// than the whole worktree of a plain session.
func (p *Perimeter) Bounded() bool { return !p.all }

// errOutside is the refusal of a path that is not in the worktree at all.
var errOutside = errors.New("outside the worktree")

// Rel turns a path the agent named into a slash-separated path relative
// to the worktree, lexically: ".." is resolved, and a path that leaves the
// worktree is errOutside. Relative paths are taken from the worktree,
// except one starting with "~", which a tool may take from a home.
func (p *Perimeter) Rel(path string) (string, error) {
	if path == "" || strings.ContainsRune(path, 0) {
		return "", fmt.Errorf("%q is not a path", path)
	}
	if !filepath.IsAbs(path) {
		if strings.HasPrefix(path, "~") {
			// The agent's tool may expand it to a home directory.
			return "", errOutside
		}
		path = filepath.Join(p.root, path)
	}
	path = filepath.Clean(path)
	for _, root := range []string{p.root, p.realRoot} {
		rel, err := filepath.Rel(root, path)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel), nil
		}
	}
	return "", errOutside
}

// CheckWrite says why rel (from Rel) may not be written, or nil. It refuses
// the repository's own metadata, any path through a symlink (a write never
// follows one), and whatever the WP does not own.
func (p *Perimeter) CheckWrite(rel string) error {
	if rel == "." {
		return errors.New("the worktree itself is not a file")
	}
	for _, part := range strings.Split(rel, "/") {
		if strings.EqualFold(part, ".git") {
			return errors.New("git metadata is never written by agents")
		}
	}
	if err := p.noSymlink(rel); err != nil {
		return err
	}
	if p.all {
		return nil
	}
	for _, g := range p.deny {
		if g.Match(rel) {
			return fmt.Errorf("outside the work package's perimeter (%s belongs to another owner)", g)
		}
	}
	for _, g := range p.allow {
		if g.Match(rel) {
			return nil
		}
	}
	return errors.New("outside the work package's perimeter")
}

// noSymlink refuses a path any existing component of which is a symlink.
func (p *Perimeter) noSymlink(rel string) error {
	cur := p.root
	for _, part := range strings.Split(rel, "/") {
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // the rest is still to be made
		}
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symlink; writes never follow one", strings.TrimPrefix(cur, p.root+string(filepath.Separator)))
		}
	}
	return nil
}
