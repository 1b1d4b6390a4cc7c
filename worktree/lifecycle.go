package worktree

import (
	"fmt"
	"time"
)

// teardown runs the trusted teardown hooks of the worktree's base, if any.
func (mg *Manager) teardown(m *Meta) ([]byte, error) {
	hooks, err := HooksAt(mg.Repo, m.BaseCommit)
	if err != nil || len(hooks.Teardown) == 0 {
		return nil, err
	}
	if err := RequireTrust(mg.Repo, hooks, m.Base); err != nil {
		return nil, err
	}
	return RunHooks("teardown", hooks.Teardown, m, hooks.Env, mg.Config.HookTimeout.Duration, mg.Out)
}

// Removal is what Manager.Remove removed: a worktree, or what an
// interrupted `worktree new` left half made.
type Removal struct {
	Meta      *Meta      `json:"meta,omitempty"`
	Abandoned *Abandoned `json:"abandoned,omitempty"`
}

// Remove removes worktree slug after its teardown hooks, keeping its
// branch. A dirty tree is refused before any hook runs unless o accepts
// that exact loss.
func (mg *Manager) Remove(slug string, o RemoveOptions) (Removal, error) {
	m, err := Load(mg.Repo, slug)
	if err != nil {
		if ValidateSlug(slug) != nil {
			return Removal{}, err
		}
		if a, ok := FindAbandoned(mg.Repo, slug); ok {
			return Removal{Abandoned: &a}, mg.removeAbandoned(a, "rm")
		}
		return Removal{}, err
	}
	if s, err := State(mg.Repo, m); err == nil && ((s.Modified > 0 && !o.DiscardModified) || (s.Untracked > 0 && !o.DiscardUntracked)) {
		return Removal{}, Remove(mg.Repo, m, o) // refuses, naming the loss
	}
	log, err := mg.teardown(m)
	if err != nil {
		return Removal{}, err
	}
	if err := Remove(mg.Repo, m, o); err != nil {
		return Removal{}, err
	}
	ev := Removed{Slug: m.Slug, Path: m.Path, Branch: m.Branch, DiscardModified: o.DiscardModified, DiscardUntracked: o.DiscardUntracked}
	return Removal{Meta: m}, mg.record(KindRemoved, eventID(m.Slug, "removed", time.Now()), ev, "teardown.log", log)
}

// removeAbandoned removes a worktree an interrupted `worktree new` left
// half made, and records it; by names the command that did.
func (mg *Manager) removeAbandoned(a Abandoned, by string) error {
	if err := RemoveAbandoned(mg.Repo, a); err != nil {
		return err
	}
	ev := Removed{Slug: a.Slug, Path: a.Path, Branch: a.Branch, AbandonedByPid: a.Pid, By: by}
	return mg.record(KindRemoved, eventID(a.Slug, "removed", time.Now()), ev, "", nil)
}

// Archive saves the whole state of worktree slug on a salvage ref, after
// its teardown hooks, then removes it.
func (mg *Manager) Archive(slug string) (*Salvage, error) {
	m, err := Load(mg.Repo, slug)
	if err != nil {
		return nil, err
	}
	return mg.archive(m)
}

func (mg *Manager) archive(m *Meta) (*Salvage, error) {
	now := time.Now()
	log, err := mg.teardown(m)
	if err != nil {
		return nil, err
	}
	s, err := Archive(mg.Repo, m, now)
	if err != nil {
		return s, err
	}
	ev := Archived{Slug: m.Slug, SalvageRef: s.Ref, Commit: s.Commit, Head: s.Head}
	return s, mg.record(KindArchived, eventID(m.Slug, "archived", now), ev, "teardown.log", log)
}

// ArchiveBranch saves branch, whose worktree slug is gone, on a salvage
// ref and deletes it (see ArchiveBranch), recording it as an archive.
func (mg *Manager) ArchiveBranch(slug, branch string) (*Salvage, error) {
	now := time.Now()
	path, err := Location(mg.Repo, mg.Config.Root, slug)
	if err != nil {
		return nil, err
	}
	s, err := ArchiveBranch(mg.Repo, slug, branch, path, now)
	if err != nil {
		return s, err
	}
	ev := Archived{Slug: slug, SalvageRef: s.Ref, Commit: s.Commit, Head: s.Head}
	return s, mg.record(KindArchived, eventID(slug, "archived", now), ev, "", nil)
}

// Restore brings back the latest archived state of worktree slug.
func (mg *Manager) Restore(slug string) (*Meta, *Salvage, error) {
	if err := ValidateSlug(slug); err != nil {
		return nil, nil, err
	}
	s, err := LatestSalvage(mg.Repo, slug)
	if err != nil {
		return nil, nil, err
	}
	m, err := Restore(mg.Repo, s)
	if err != nil {
		return nil, nil, err
	}
	ev := Restored{Slug: m.Slug, SalvageRef: s.Ref, Path: m.Path}
	return m, s, mg.record(KindRestored, eventID(m.Slug, "restored", time.Now()), ev, "", nil)
}

// Collected is one worktree as gc sorted it and, when applied, what was
// done to it.
type Collected struct {
	Class
	Done       string `json:"done,omitempty"`
	SalvageRef string `json:"salvage_ref,omitempty"`
}

// GC sorts every worktree into reclaim, salvage or hold (see Classify) and,
// with apply, removes the reclaimable ones and archives the salvageable
// ones. live says whether a session is attached to a worktree.
func (mg *Manager) GC(apply bool, live func(*Meta) bool) ([]Collected, error) {
	all, err := All(mg.Repo)
	if err != nil {
		return nil, err
	}
	classes, err := Classify(mg.Repo, all, live)
	if err != nil {
		return nil, err
	}
	out := []Collected{}
	for i, m := range all {
		c := Collected{Class: classes[i]}
		if apply {
			if err := mg.collect(m, &c); err != nil {
				return nil, err
			}
		}
		out = append(out, c)
	}
	// What an interrupted worktree new left: only its own partial checkout.
	for _, a := range AllAbandoned(mg.Repo) {
		c := Collected{Class: Class{Slug: a.Slug, Action: "reclaim",
			Reason: fmt.Sprintf("left half made by an interrupted worktree new (pid %d)", a.Pid)}}
		if apply {
			if err := mg.removeAbandoned(a, "gc"); err != nil {
				return nil, err
			}
			c.Done = "removed"
		}
		out = append(out, c)
	}
	return out, nil
}

// collect does what gc decided for m.
func (mg *Manager) collect(m *Meta, c *Collected) error {
	switch c.Action {
	case "reclaim":
		log, err := mg.teardown(m)
		if err == nil {
			err = Remove(mg.Repo, m, RemoveOptions{})
		}
		if err != nil {
			return err
		}
		ev := Removed{Slug: m.Slug, Path: m.Path, By: "gc"}
		if err := mg.record(KindRemoved, eventID(m.Slug, "removed", time.Now()), ev, "teardown.log", log); err != nil {
			return err
		}
		c.Done = "removed"
	case "salvage":
		s, err := mg.archive(m)
		if err != nil {
			return err
		}
		c.Done, c.SalvageRef = "archived", s.Ref
	}
	return nil
}

// Listed is one worktree as `worktree ls` shows it.
type Listed struct {
	*Meta
	Head        string     `json:"head"`
	Tree        *TreeState `json:"tree,omitempty"`
	Integration string     `json:"integration,omitempty"`
	Live        bool       `json:"live"`
	// Missing: the directory was deleted by hand; dispatch makes it again
	// from its branch (Remake), worktree rm forgets it.
	Missing bool `json:"missing,omitempty"`
}

// List returns every worktree, then the ones left half made; with status,
// also their tree state and integration into their base.
func (mg *Manager) List(status bool, live func(*Meta) bool) ([]Listed, error) {
	all, err := All(mg.Repo)
	if err != nil {
		return nil, err
	}
	var statuses []Status
	if status {
		statuses = Statuses(mg.Repo, all)
	}
	out := []Listed{}
	for i, m := range all {
		r := Listed{Meta: m, Live: live(m), Head: BranchHead(mg.Repo, m), Missing: Missing(m)}
		if status && !r.Missing {
			st := statuses[i]
			if st.TreeErr != nil {
				return nil, fmt.Errorf("worktree %s: %w", m.Slug, st.TreeErr)
			}
			r.Tree, r.Integration = &st.Tree, st.Integration
			if st.IntegrationErr != nil {
				r.Integration = st.IntegrationErr.Error()
			}
		}
		out = append(out, r)
	}
	for _, a := range AllAbandoned(mg.Repo) {
		out = append(out, Listed{Meta: &Meta{Slug: a.Slug, Path: a.Path, Branch: a.Branch,
			BaseCommit: a.Base, State: StateAbandoned}, Head: a.Base})
	}
	return out, nil
}
