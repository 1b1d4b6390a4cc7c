package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Cleanup through MCP keeps the CLI's safety: a dirty worktree is refused
// (exit 5, nothing removed) until its loss is named; gc is a dry run until
// apply, and what it cannot remove cleanly it archives, restorable.
func TestMCPCleansUpWithoutLosingWork(t *testing.T) {
	dir := newRepo(t)
	must(t, dir, "git", "agentproto", "init")
	cs := mcpConnect(t, dir)
	wt := mustTool(t, cs, "worktree_new", map[string]any{"slug": "scratch"}).Doc["path"].(string)
	os.WriteFile(filepath.Join(wt, "notes.txt"), []byte("mine\n"), 0o644)

	refused := callTool(t, cs, "worktree_rm", map[string]any{"slug": "scratch"})
	if !refused.IsError || refused.Doc["exit_code"] != float64(5) || !strings.Contains(refused.Text, "untracked") {
		t.Fatalf("worktree_rm of a dirty tree: %+v", refused)
	}
	if _, err := os.Stat(filepath.Join(wt, "notes.txt")); err != nil {
		t.Fatalf("the refused removal lost the file: %v", err)
	}

	dry := mustTool(t, cs, "worktree_gc", map[string]any{})
	if !strings.Contains(dry.Text, "dry run") {
		t.Errorf("worktree_gc without apply: %s", dry.Text)
	}
	if _, err := os.Stat(wt); err != nil {
		t.Fatalf("the dry run removed the worktree: %v", err)
	}
	mustTool(t, cs, "worktree_gc", map[string]any{"apply": true})
	if _, err := os.Stat(wt); !os.IsNotExist(err) {
		t.Fatalf("gc left the worktree with untracked work in place (or failed): %v", err)
	}
	if refs := must(t, dir, "git", "for-each-ref", "refs/agentproto/salvage/"); !strings.Contains(refs, "scratch") {
		t.Fatalf("gc removed untracked work without archiving it; salvage refs:\n%s", refs)
	}
}
