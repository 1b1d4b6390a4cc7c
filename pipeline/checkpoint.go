package pipeline

import (
	"fmt"
	"os"
	"strings"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/repopath"
	"github.com/agentproto/agentproto/plans"
	"github.com/agentproto/agentproto/worktree"
)

// Checkpoint commits exactly the in-perimeter changed paths of a WP's
// worktree — through a separate index, so nothing else the worktree has
// staged goes in — with a message naming the WP and its frozen brief. It
// never pushes. The latest verification must have passed.
func (e *Env) Checkpoint(wpID, message string) (*Checkpoint, error) {
	frozen, err := e.Frozen()
	if err != nil {
		return nil, err
	}
	wp, err := e.Project.WP(wpID)
	if err != nil {
		return nil, err
	}
	st, err := ReadState(e.Ledger, e.Project.Name)
	if err != nil {
		return nil, err
	}
	if !st.Verified(wp.ID) {
		return nil, fault.Refusedf("%s has no passing verification; run git agentproto verify %s %s first", wp.ID, e.Project.Name, wp.ID)
	}
	m, err := worktree.Load(e.Repo, Slug(e.Project.Name, wp.ID))
	if err != nil {
		return nil, err
	}
	changes, err := worktree.Changes(e.Repo, m)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, c := range changes {
		owners := plans.Owner(e.Project, c.Path)
		if len(owners) == 1 && owners[0] == wp.ID && c.Status != "" {
			paths = append(paths, c.Path)
		}
	}
	wt := worktree.Repo(e.Repo, m)
	head, err := wt.Git("rev-parse", "HEAD")
	if err != nil {
		return nil, err
	}
	h := strings.TrimSpace(string(head))
	cp := &Checkpoint{Project: e.Project.Name, WP: wp.ID, Commit: h, Paths: paths}
	specs := repopath.Pathspecs(paths) // names, never patterns
	// Paths only committed earlier are already in HEAD; only the rest
	// need a commit.
	dirty, err := wt.Git(append([]string{"status", "--porcelain", "-z", "--untracked-files=all", "--"}, specs...)...)
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 || len(dirty) == 0 {
		return cp, nil
	}
	brief, _ := e.Project.BriefPath(wp)
	sha := frozen.Files[baseName(brief)]
	if message == "" {
		message = fmt.Sprintf("%s: %s", wp.ID, wp.Title)
	}
	message += fmt.Sprintf("\n\nagentproto-plan: %s\nagentproto-wp: %s\nagentproto-brief-sha256: %s\n", e.Project.Name, wp.ID, sha)
	tmp, err := os.CreateTemp("", "agentproto-checkpoint-index-")
	if err != nil {
		return nil, err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	withIndex := func(args ...string) ([]byte, error) {
		cmd := wt.Command(args...)
		cmd.Env = append(cmd.Env, "GIT_INDEX_FILE="+tmp.Name())
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
		}
		return out, nil
	}
	if _, err := withIndex("read-tree", h); err != nil {
		return nil, err
	}
	if _, err := withIndex(append([]string{"add", "-A", "--"}, specs...)...); err != nil {
		return nil, err
	}
	tree, err := withIndex("write-tree")
	if err != nil {
		return nil, err
	}
	commit, err := wt.Git("commit-tree", strings.TrimSpace(string(tree)), "-p", h, "-m", message)
	if err != nil {
		return nil, err
	}
	c := strings.TrimSpace(string(commit))
	if _, err := wt.Git("update-ref", "-m", "agentproto checkpoint "+wp.ID, "HEAD", c, h); err != nil {
		return nil, err
	}
	// The real index follows HEAD for the committed paths only.
	if _, err := wt.Git(append([]string{"reset", "-q", "--"}, specs...)...); err != nil {
		return nil, err
	}
	cp.Commit = c
	id := fmt.Sprintf("pipeline/%s/%s/checkpoint/%s", e.Project.Name, wp.ID, c)
	return cp, e.record(KindCheckpointed, id, cp, nil)
}

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}
