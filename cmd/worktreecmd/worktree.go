// Package worktreecmd wires `worktree` (new, ls, changes, rm, archive,
// restore, gc) and `trust`.
package worktreecmd

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/sessions"
	"github.com/agentproto/agentproto/worktree"
)

// NewCmdWorktree returns the `worktree` command.
func NewCmdWorktree(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "worktree <command>",
		Short: "Provision, inspect and tear down the linked worktrees executors work in",
		Long: `Each executor works in its own linked worktree on branch wt/SLUG, outside the
repository (default ~/.agentproto/worktrees/<repo>/<slug>). Setup hooks come from
agentproto.toml as committed at the base revision and run only once trusted
(git agentproto trust). Teardown never loses work: rm refuses dirty trees,
archive snapshots everything to refs/agentproto/salvage/ first.`,
	}
	cmd.AddCommand(newCmdNew(f), newCmdLs(f), newCmdChanges(f), newCmdRm(f),
		newCmdArchive(f), newCmdRestore(f), newCmdGC(f))
	return cmd
}

// record appends a worktree event; the ledger is the durable trail, so a
// failure here is reported but does not undo the work on disk.
func record(f *cmdutil.Factory, kind, id string, data any, atts []gitstore.AttachmentInput) error {
	l, err := f.Ledger()
	if err != nil {
		return err
	}
	b, err := json.Marshal(data)
	if err != nil {
		return err
	}
	_, err = l.Append([]gitstore.Draft{{Kind: kind, ID: id, Data: b, Attachments: atts}})
	cmdutil.Warn(f.IO.ErrOut, l.Warnings)
	if err != nil {
		return fmt.Errorf("recording %s in the ledger: %w", kind, err)
	}
	return nil
}

func eventID(slug, what string, t time.Time) string {
	return fmt.Sprintf("worktree/%s/%s/%d", slug, what, t.UnixNano())
}

// mainWorkTree is the main worktree (where copy sources live): the parent of
// the common dir when that is a ".git" directory.
func mainWorkTree(repo *gitrepo.Repo) string {
	if filepath.Base(repo.CommonDir) == ".git" {
		return filepath.Dir(repo.CommonDir)
	}
	return repo.WorkTree
}

func load(f *cmdutil.Factory, slug string) (*gitrepo.Repo, *worktree.Meta, error) {
	repo, err := f.Repo()
	if err != nil {
		return nil, nil, err
	}
	m, err := worktree.Load(repo, slug)
	return repo, m, err
}

// liveWorktrees returns the worktrees a running session is attached to, by
// slug and by path.
func liveWorktrees(repo *gitrepo.Repo) map[string]bool {
	live := map[string]bool{}
	recs, _ := sessions.NewStore(repo.CommonDir).All()
	for _, r := range recs {
		if sessions.Terminal(r.State) {
			continue
		}
		if r.Worktree != "" {
			live[r.Worktree] = true
		}
		live[r.Dir] = true
	}
	return live
}
