package gitrepo

import (
	"slices"
	"strings"
)

// Ref is a ref and the object it points at.
type Ref struct {
	Name string // full name: refs/heads/main
	ID   string
}

// Refs lists the refs matching any of patterns, sorted by name, as git
// for-each-ref matches them: a pattern names a ref or a prefix of whole
// components ("refs/heads" holds refs/heads/main, not refs/headsx), or
// is a glob ("refs/heads/wt/*"). No pattern lists every ref.
func (r *Repo) Refs(patterns ...string) ([]Ref, error) {
	return r.RefsBut("", patterns...)
}

// RefsBut is Refs leaving out the refs under but (a prefix ending in a
// slash), which the walk of the files does not read.
func (r *Repo) RefsBut(but string, patterns ...string) ([]Ref, error) {
	if refs, ok := r.storedRefs(patterns, but); ok {
		return refs, nil
	}
	out, err := r.Git(append([]string{"for-each-ref", "--format=%(objectname) %(refname)"}, patterns...)...)
	if err != nil {
		return nil, err
	}
	refs := parseRefs(string(out), " ")
	if but != "" {
		refs = slices.DeleteFunc(refs, func(ref Ref) bool { return strings.HasPrefix(ref.Name, but) })
	}
	return refs, nil
}

// parseRefs reads "ID<sep>NAME" lines.
func parseRefs(out, sep string) []Ref {
	var refs []Ref
	for _, line := range strings.Split(out, "\n") {
		if id, name, ok := strings.Cut(strings.TrimSpace(line), sep); ok {
			refs = append(refs, Ref{Name: name, ID: id})
		}
	}
	return refs
}

// UpdateRef moves ref to newID if it points at oldID ("" when it must
// not exist yet), as one compare-and-swap.
func (r *Repo) UpdateRef(ref, newID, oldID string) error {
	return r.UpdateRefLogged(ref, newID, oldID, "")
}

// UpdateRefLogged is UpdateRef recording why in the reflog (an empty
// reason records git's default).
func (r *Repo) UpdateRefLogged(ref, newID, oldID, reason string) error {
	if oldID == "" {
		oldID = strings.Repeat("0", len(newID))
	}
	args := []string{"update-ref"}
	if reason != "" {
		args = append(args, "-m", reason)
	}
	_, err := r.Git(append(args, ref, newID, oldID)...)
	return err
}

// DeleteRef deletes ref if it still points at oldID, as one
// compare-and-delete: a ref moved meanwhile is kept and the error says
// so. An empty oldID deletes whatever ref points at.
func (r *Repo) DeleteRef(ref, oldID string) error {
	args := []string{"update-ref", "-d", ref}
	if oldID != "" {
		args = append(args, oldID)
	}
	_, err := r.Git(args...)
	return err
}
