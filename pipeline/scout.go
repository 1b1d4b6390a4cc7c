package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/internal/repopath"
	"github.com/agentproto/agentproto/launch"
	"github.com/agentproto/agentproto/perimeter"
	"github.com/agentproto/agentproto/plans"
	"github.com/agentproto/agentproto/scout"
	"github.com/agentproto/agentproto/sessions"
	"github.com/agentproto/agentproto/worktree"
)

// KindScouted records a scout run: where it ran, what its recon's
// citations bore out, and the recon itself attached.
const KindScouted = "plan_scouted"

var scoutedKind = gitstore.Declare[Scouted](owner, KindScouted, gitstore.Scrubbed())

// Scouted is the data of a plan_scouted event and scout's JSON.
type Scouted struct {
	Project    string        `json:"project"`
	Session    string        `json:"session"`
	Worktree   string        `json:"worktree"`
	BaseCommit string        `json:"base_commit"`
	Recon      string        `json:"recon"` // path of RECON.md in the repository
	Check      *scout.Result `json:"check"`
}

// reconFile is where the scout writes its answer in its worktree: one
// file, so any other change is the scout doing what it must not.
const reconFile = "RECON.md"

// maxRecon bounds the recon adopted from a scout's worktree.
const maxRecon = 1 << 20

// ScoutOptions say how a scout session runs.
type ScoutOptions struct {
	Repo     *gitrepo.Repo
	Ledger   *gitstore.Ledger
	Config   config.Config
	Sessions *sessions.Client
	Project  string
	Question string
	// Profile or Adapter runs the scout (a cheap long-context model).
	Profile, Adapter string
	// Base is the revision scouted; default [worktree] base, origin/HEAD, HEAD.
	Base string
	// Replace lets a new recon replace RECON.md; the old one is attached
	// to the event, never lost.
	Replace bool
	NoPing  bool
	Env     []string
	Out     io.Writer
}

// Scout runs a read-only recon session in its own worktree: the agent
// answers the question into RECON.md there, and any other change it makes
// voids the run. The recon is copied into the plan folder, each citation
// checked against the base, and the run recorded with the recon attached.
func Scout(o ScoutOptions) (*Scouted, error) {
	if err := plans.ValidateProject(o.Project); err != nil {
		return nil, err
	}
	if strings.TrimSpace(o.Question) == "" {
		o.Question = defaultQuestion(o.Repo.WorkTree, o.Project)
	}
	if err := o.Config.Worktree.NeedsOwnWorktree(os.Getenv, "the scout"); err != nil {
		return nil, err
	}
	dest := filepath.Join(plans.ProjectDir(o.Repo.WorkTree, o.Project), scout.File)
	previous, err := os.ReadFile(dest)
	if err == nil && !o.Replace {
		return nil, fault.Conflictf("%s exists: check it again with scout check %s, or give --replace (the old one is kept in the ledger)", rel(o.Repo, dest), o.Project)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	l, err := launch.Resolve(o.Config, o.Repo.WorkTree, launch.Request{Profile: o.Profile, Adapter: o.Adapter,
		DefaultAdapter: o.Config.Dispatch.Adapter, Env: o.Env})
	if errors.Is(err, launch.ErrNoAdapter) {
		return nil, fault.Invalidf("no adapter for the scout: give --profile or --adapter, or set [dispatch] adapter in agentproto.toml")
	}
	if err != nil {
		return nil, err
	}
	mg := &worktree.Manager{Repo: o.Repo, Config: o.Config.Worktree, Ledger: func() (gitstore.Store, error) { return o.Ledger, nil }, Out: o.Out, By: "scout"}
	m, _, err := mg.Ensure(worktree.CreateOptions{Slug: "scout-" + o.Project, Base: o.Base})
	if err != nil {
		return nil, err
	}
	if changes, err := worktree.Changes(o.Repo, m); err != nil {
		return nil, err
	} else if len(changes) > 0 {
		return nil, fault.Conflictf("the scout's worktree %s has changes already (%s): remove it (worktree rm %s) or look at it first", m.Slug, changes[0].Path, m.Slug)
	}
	if err := l.RequireTrust(o.Config, o.Repo.WorkTree, o.Repo.CommonDir, m.Path, ""); err != nil {
		return nil, err
	}
	start := l.StartArgs()
	start.Dir, start.Worktree, start.Label, start.Ping = m.Path, m.Slug, o.Project+"/scout", !o.NoPing
	start.Prompt = scoutPrompt(o.Question)
	// An agent whose writes the adapter sees (acp) may write RECON.md only.
	start.Env = withAllowed(o.Env, []string{reconFile})
	// What lies outside its worktree, before the scout can touch it: a
	// write there voids the run as a write in the worktree does.
	before, err := snapshotSealed(o.Repo, m.Slug, o.Project)
	if err != nil {
		return nil, err
	}
	rec, err := o.Sessions.Start(context.Background(), *start)
	if err != nil {
		return nil, err
	}
	id := rec.ID
	_, err = o.Sessions.Wait(context.Background(), []string{id}, sessions.UntilTurnEnd, o.Config.Dispatch.Timeout.Duration)
	o.Sessions.Kill(context.Background(), id)
	if err != nil {
		return nil, err
	}
	if moved, err := changedSealed(o.Repo, m.Slug, o.Project, before); err != nil {
		return nil, err
	} else if len(moved) > 0 {
		return nil, fault.Conflictf("while scout session %s ran, %s changed outside its worktree %s: a scout writes only its %s; nothing adopted (if the change was yours, run the scout again)",
			id, strings.Join(moved, ", "), m.Slug, reconFile)
	}
	changes, err := worktree.Changes(o.Repo, m)
	if err != nil {
		return nil, err
	}
	var others []string
	wrote := false
	for _, c := range changes {
		if c.Path == reconFile {
			wrote = true
		} else {
			others = append(others, c.Path)
		}
	}
	if len(others) > 0 {
		return nil, fault.Conflictf("scout session %s changed %s in %s: a scout reads and writes only %s; nothing adopted", id, strings.Join(others, ", "), m.Slug, reconFile)
	}
	if !wrote {
		return nil, fault.Conflictf("scout session %s wrote no %s in %s (its output: git agentproto sessions output %s)", id, reconFile, m.Slug, id)
	}
	doc, err := readPlain(m.Path, reconFile)
	if err != nil {
		return nil, err
	}
	r, err := scout.Parse(doc)
	if err != nil {
		return nil, err
	}
	res, err := scout.Check(r, &scout.GitSource{Repo: o.Repo, Commit: m.BaseCommit})
	if err != nil {
		return nil, err
	}
	if err := writePlain(o.Repo.WorkTree, rel(o.Repo, dest), doc); err != nil {
		return nil, err
	}
	ev := Scouted{Project: o.Project, Session: id, Worktree: m.Slug, BaseCommit: m.BaseCommit, Recon: rel(o.Repo, dest), Check: res}
	atts := []gitstore.AttachmentInput{{Name: scout.File, Content: doc}}
	if previous != nil {
		atts = append(atts, gitstore.AttachmentInput{Name: "RECON.previous.md", Content: previous})
	}
	if _, err := scoutedKind.Record(o.Ledger, "scout/"+o.Project+"/"+id, ev, atts...); err != nil {
		return nil, err
	}
	return &ev, nil
}

// defaultQuestion is the recon a plan needs when none is asked: the
// layout, how it builds and tests, and what a change would touch; with the
// plan's SPEC.md when it is written already, so the recon serves it.
func defaultQuestion(root, project string) string {
	q := "Map what a plan for " + project + " needs to know about this repository: its layout and\n" +
		"entry points, how it is built and how its tests run, and the code, configuration and\n" +
		"conventions a change would touch."
	spec, err := readPlain(plans.ProjectDir(root, project), "SPEC.md")
	if err != nil || len(bytes.TrimSpace(spec)) == 0 {
		return q
	}
	return q + " The plan's SPEC.md so far, which the recon serves:\n\n" + string(spec)
}

func scoutPrompt(question string) string {
	var b strings.Builder
	b.WriteString("You are a scout: read this repository and answer the question below. Change no file\n")
	fmt.Fprintf(&b, "except %s, which you create at the top of your working directory. Run nothing that\n", reconFile)
	b.WriteString("changes the repository.\n\nWrite each finding as a numbered claim with its evidence, exactly so:\n\n")
	b.WriteString("## C1: one sentence the claim states\n`path/to/file.go:42`\n> the source text at that line, copied verbatim\n\n")
	b.WriteString("Every claim needs at least one citation: the path from the repository root, the line\n")
	b.WriteString("number, and the quoted lines. Each citation is checked against the source; a claim\n")
	b.WriteString("whose quote is not there is marked unverified.\n\nThe question:\n\n")
	b.WriteString(strings.TrimSpace(question))
	b.WriteString("\n")
	return b.String()
}

// withAllowed gives the session a perimeter of exactly paths.
func withAllowed(env []string, paths []string) []string {
	b, _ := json.Marshal(perimeter.Spec{Allow: paths})
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, perimeter.Env+"=") {
			out = append(out, kv)
		}
	}
	return append(out, perimeter.Env+"="+string(b))
}

// readPlain reads a regular file under dir that no symlink leads to.
func readPlain(dir, name string) ([]byte, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	fi, err := root.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fault.Refusedf("%s in the scout's worktree is not a regular file; it is not read", name)
	}
	if fi.Size() > maxRecon {
		return nil, fault.Invalidf("%s is %d bytes; a recon is limited to %d", name, fi.Size(), maxRecon)
	}
	f, err := root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxRecon))
}

// writePlain writes p under dir, making its folders, through no symlink.
func writePlain(dir, p string, data []byte) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	if err := repopath.CheckPlain(root, p); err != nil {
		return fault.Refusedf("writing %s: %v", p, err)
	}
	if err := root.MkdirAll(filepath.Dir(filepath.FromSlash(p)), 0o755); err != nil {
		return err
	}
	f, err := root.OpenFile(filepath.FromSlash(p), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, bytes.NewReader(data)); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func rel(repo *gitrepo.Repo, path string) string {
	r, err := filepath.Rel(repo.WorkTree, path)
	if err != nil {
		return path
	}
	return filepath.ToSlash(r)
}

// ScoutCheck checks the plan's RECON.md again against commit.
func ScoutCheck(repo *gitrepo.Repo, project, commit string) (*scout.Result, error) {
	if err := plans.ValidateProject(project); err != nil {
		return nil, err
	}
	path := filepath.Join(plans.ProjectDir(repo.WorkTree, project), scout.File)
	doc, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fault.Invalidf("plan %s has no %s: run git agentproto scout %s first", project, scout.File, project)
	} else if err != nil {
		return nil, err
	}
	r, err := scout.Parse(doc)
	if err != nil {
		return nil, err
	}
	return scout.Check(r, &scout.GitSource{Repo: repo, Commit: commit})
}

// LastScout returns the latest scout run of project, if any.
func LastScout(l *gitstore.Ledger, project string) (*Scouted, error) {
	for e, err := range l.Events(gitstore.Query{Kinds: []string{KindScouted}}) {
		if err != nil {
			return nil, err
		}
		s, err := scoutedKind.Decode(e)
		if err == nil && s.Project == project {
			return &s, nil
		}
	}
	return nil, nil
}
