package worktree

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/gitrepo"
)

// Manager runs the lifecycle of a repository's worktrees — new, remove,
// archive, restore, gc — and records each step in the ledger, so the
// worktree commands, dispatch, sessions start, consolidate and fork share
// one sequence.
type Manager struct {
	Repo *gitrepo.Repo
	// Config is the [worktree] table: root, default base, submodules.
	Config config.Worktree
	// Ledger opens the ledger when a step is recorded, after the step is
	// done on disk: the ledger is the trail, a failure to write it is
	// reported but does not undo the work.
	Ledger func() (gitstore.Store, error)
	// Out receives the output of setup and teardown hooks and the ledger's
	// warnings.
	Out io.Writer
	// By names the command provisioning worktrees in the events, when it
	// is not `worktree new`.
	By string
}

// CreateOptions say which worktree New makes.
type CreateOptions struct {
	Slug string
	// Base is the revision to start from; default [worktree] base, then
	// origin/HEAD, then HEAD.
	Base   string
	Branch string // default wt/SLUG
	// NoSetup skips the setup hooks and copies (and so their trust).
	NoSetup bool
	// BaseName and BaseCommit, both set, are a base already resolved, used
	// instead of Base: dispatch starts a WP at its dependencies' work.
	BaseName, BaseCommit string
	// HooksAt is the commit whose hooks run; default the base commit.
	HooksAt string
}

// New provisions worktree o.Slug, runs its trusted setup hooks and records
// it. When a setup hook fails the worktree is kept, marked setup-failed,
// and both the worktree and the error are returned.
func (mg *Manager) New(o CreateOptions) (*Meta, error) {
	start := time.Now()
	if err := ValidateSlug(o.Slug); err != nil {
		return nil, err
	}
	baseName, baseCommit := o.BaseName, o.BaseCommit
	if baseName == "" || baseCommit == "" {
		var err error
		if baseName, baseCommit, err = ResolveBase(mg.Repo, o.Base, mg.Config.Base); err != nil {
			return nil, err
		}
	}
	path, err := Location(mg.Repo, mg.Config.Root, o.Slug)
	if err != nil {
		return nil, err
	}
	hooks := &Hooks{}
	if !o.NoSetup {
		at := o.HooksAt
		if at == "" {
			at = baseCommit
		}
		if hooks, err = HooksAt(mg.Repo, at); err != nil {
			return nil, err
		}
		// Trust is asked before anything is made.
		if err := RequireTrust(mg.Repo, hooks, baseName); err != nil {
			return nil, err
		}
	}
	m, err := Provision(mg.Repo, NewOptions{Slug: o.Slug, Path: path, Branch: o.Branch, Base: baseName,
		BaseCommit: baseCommit, Submodules: mg.Config.Submodules})
	if err != nil {
		return nil, err
	}
	ev := Provisioned{Slug: m.Slug, Path: m.Path, Branch: m.Branch, Base: m.Base, BaseCommit: m.BaseCommit,
		Head: m.BaseCommit, Checkout: m.Checkout, CheckoutReason: m.CheckoutReason, By: mg.By}
	var log []byte
	var setupErr error
	if !hooks.Empty() {
		log, setupErr = mg.setup(hooks, m, &ev)
		if setupErr != nil {
			if err := MarkFailed(mg.Repo, m, setupErr); err != nil {
				return nil, err
			}
		}
	}
	ev.DurationMS = time.Since(start).Milliseconds()
	if err := mg.record(KindProvisioned, eventID(m.Slug, "provisioned", start), ev, "setup.log", log); err != nil {
		return nil, err
	}
	if setupErr != nil {
		return m, fmt.Errorf("%w; the worktree is kept for inspection at %s (marked %s)", setupErr, m.Path, StateSetupFailed)
	}
	return m, nil
}

// setup copies the configured files into m, then runs the setup hooks; it
// fills the event's account of both and returns the hooks' log. In a
// worktree checked out at another commit than the hooks' (a work package's
// checkpoint), the hooks run the base's version of what they run
// (basescripts.go) and the checkpoint's is put back after.
func (mg *Manager) setup(hooks *Hooks, m *Meta, ev *Provisioned) ([]byte, error) {
	copied, err := CopyFiles(mainWorkTree(mg.Repo), hooks.Copy, m, mg.Out)
	var swaps []scriptSwap
	if err == nil {
		swaps, err = baseScriptSwaps(mg.Repo, hooks, m.BaseCommit)
	}
	if err == nil && len(swaps) > 0 {
		for _, s := range swaps {
			fmt.Fprintf(mg.Out, "[setup] %s: the hooks run its version trusted at %.12s, not the one at %.12s\n", s.path, hooks.Commit, m.BaseCommit)
		}
		if err = swapIn(mg.Repo, m.Path, swaps); err != nil {
			err = fmt.Errorf("setting the trusted version of what the hooks run in place: %w", err)
		}
	}
	var log []byte
	if err == nil {
		log, err = RunHooks("setup", hooks.Setup, m, hooks.Env, mg.Config.HookTimeout.Duration, mg.Out)
	}
	if len(swaps) > 0 {
		// Put back even after a failed run (or a failed swap in): the
		// worktree holds the checkpoint whatever the hooks did.
		if rerr := swapOut(mg.Repo, m.Path, swaps); rerr != nil {
			err = errors.Join(err, fmt.Errorf("putting the checkpoint's version back after the hooks: %w", rerr))
		}
	}
	ev.Setup = &SetupRecord{Commands: hooks.Setup, Copied: copied, OK: err == nil}
	for _, s := range swaps {
		ev.Setup.FromBase = append(ev.Setup.FromBase, s.path)
	}
	if err != nil {
		ev.Failure = err.Error()
	}
	return log, err
}

// Ensure returns worktree o.Slug as it is when it exists, else makes it
// with New; created says which. An existing worktree is used whatever its
// base: Ensure never moves or replaces anyone's work.
func (mg *Manager) Ensure(o CreateOptions) (m *Meta, created bool, err error) {
	if err := ValidateSlug(o.Slug); err != nil {
		return nil, false, err
	}
	_, err = os.Stat(filepath.Join(adminDir(mg.Repo, o.Slug), metaFile))
	if err == nil {
		m, err := Load(mg.Repo, o.Slug)
		if err == nil && o.Base != "" && o.Base != m.Base {
			fmt.Fprintf(mg.Out, "worktree %s exists (base %s %.12s); it is used as it is, not made again from %s\n", m.Slug, m.Base, m.BaseCommit, o.Base)
		}
		return m, false, err
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, false, err
	}
	// A half-made or git-made worktree of that name is refused by Provision.
	m, err = mg.New(o)
	return m, m != nil, err
}

// mainWorkTree is the main worktree (where copy sources live): the parent of
// the common dir when that is a ".git" directory.
func mainWorkTree(repo *gitrepo.Repo) string {
	if filepath.Base(repo.CommonDir) == ".git" {
		return filepath.Dir(repo.CommonDir)
	}
	return repo.WorkTree
}

// record appends one lifecycle event, with the hooks' log attached under
// logName when there is one.
func (mg *Manager) record(kind, id string, data any, logName string, log []byte) error {
	if mg.Ledger == nil {
		return fmt.Errorf("recording %s: the worktree manager has no ledger", kind)
	}
	l, err := mg.Ledger()
	if err != nil {
		return err
	}
	var atts []gitstore.AttachmentInput
	if len(log) > 0 {
		atts = []gitstore.AttachmentInput{{Name: logName, Content: log}}
	}
	res, err := owner.Record(l, kind, id, data, atts...)
	if res != nil {
		for _, w := range res.Warnings {
			fmt.Fprintln(mg.Out, "warning:", w)
		}
	}
	if err != nil {
		return fmt.Errorf("recording %s in the ledger: %w", kind, err)
	}
	return nil
}
