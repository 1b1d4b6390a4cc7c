package worktree

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/testgit"
	"github.com/agentproto/agentproto/sandbox"
)

// commitFiles writes files into the main worktree and commits them,
// returning the commit.
func commitFiles(t *testing.T, mg *Manager, msg string, files map[string]string) string {
	t.Helper()
	dir := mg.Repo.WorkTree
	for p, body := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, p), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", msg)
	return testgit.Run(t, dir, "rev-parse", "HEAD")
}

func trustAt(t *testing.T, mg *Manager, commit string) {
	t.Helper()
	h, err := HooksAt(mg.Repo, commit)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Trust(mg.Repo, h); err != nil {
		t.Fatal(err)
	}
}

// TestCheckpointHooksRunTheBaseScripts: a worktree checked out at a
// checkpoint that rewrote the hook's script runs the base's script, and
// holds the checkpoint's afterwards — even when the base's script rewrote
// itself into a symlink leading out while it ran.
func TestCheckpointHooksRunTheBaseScripts(t *testing.T) {
	mg, l, out := managerRepo(t, `"sh scripts/setup.sh"`)
	outside := filepath.Join(t.TempDir(), "outside")
	base := commitFiles(t, mg, "base", map[string]string{
		".gitignore":       "ran\n",
		"scripts/setup.sh": "echo base >> ran\nrm -f scripts/setup.sh\nln -s '" + outside + "' scripts/setup.sh\n",
		"lib/a.txt":        "a\n",
	})
	trustAt(t, mg, base)
	rewrite := "echo rewrite >> ran\n"
	checkpoint := commitFiles(t, mg, "checkpoint", map[string]string{"scripts/setup.sh": rewrite, "lib/a.txt": "b\n"})

	m, err := mg.New(CreateOptions{Slug: "wp1", BaseName: "main", BaseCommit: checkpoint, HooksAt: base})
	if err != nil {
		t.Fatalf("New: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(filepath.Join(m.Path, "ran")); string(b) != "base\n" {
		t.Errorf("the hook ran %q, want the base's script only", b)
	}
	fi, err := os.Lstat(filepath.Join(m.Path, "scripts", "setup.sh"))
	if err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("scripts/setup.sh after the hooks: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(filepath.Join(m.Path, "scripts", "setup.sh")); string(b) != rewrite {
		t.Errorf("scripts/setup.sh after the hooks is %q, want the checkpoint's", b)
	}
	if st := testgit.Run(t, m.Path, "status", "--porcelain"); st != "" {
		t.Errorf("the worktree differs from the checkpoint:\n%s", st)
	}
	if _, err := os.Lstat(outside); err == nil {
		t.Error("something was written outside the worktree")
	}
	var seen *gitstore.Event
	l.Each(gitstore.Query{Kinds: []string{KindProvisioned}}, func(e *gitstore.Event) error { seen = e; return nil })
	if seen == nil || !strings.Contains(string(seen.Data), `"ok":true`) || !strings.Contains(string(seen.Data), `"from_base":["scripts/setup.sh"]`) || len(seen.Attachments) != 1 || seen.Attachments[0].Name != "setup.log" {
		t.Fatalf("event: %+v", seen)
	}
	if !strings.Contains(out.String(), "scripts/setup.sh: the hooks run its version trusted at") {
		t.Errorf("the swap is not said:\n%s", out)
	}
}

// TestCheckpointScriptTheBaseLacksIsRefused: a script the hooks name that
// only the checkpoint has has no trusted version: the hooks do not run and
// the error names it.
func TestCheckpointScriptTheBaseLacksIsRefused(t *testing.T) {
	mg, _, out := managerRepo(t, `"test ! -f scripts/extra.sh || sh scripts/extra.sh"`)
	marker := filepath.Join(t.TempDir(), "extra-ran")
	base := commitFiles(t, mg, "base", map[string]string{"lib/a.txt": "a\n"})
	trustAt(t, mg, base)
	checkpoint := commitFiles(t, mg, "checkpoint", map[string]string{"scripts/extra.sh": "touch '" + marker + "'\n"})

	m, err := mg.New(CreateOptions{Slug: "wp1", BaseName: "main", BaseCommit: checkpoint, HooksAt: base})
	if err == nil || !strings.Contains(err.Error(), "scripts/extra.sh not at the base") {
		t.Fatalf("New: %v\n%s", err, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the script the base lacks ran")
	}
	if got, _ := Load(mg.Repo, "wp1"); m == nil || got == nil || got.State != StateSetupFailed {
		t.Errorf("state: %+v", got)
	}
}

// TestHookTimeoutEndsTheHook: a hook past [worktree] hook_timeout is ended
// with its children, and provisioning fails naming the hook and the bound.
func TestHookTimeoutEndsTheHook(t *testing.T) {
	mg, _, _ := managerRepo(t, `"sleep 3031 & sleep 3032"`)
	mg.Config.HookTimeout = config.Duration{Duration: time.Second}
	trustAt(t, mg, testgit.Run(t, mg.Repo.WorkTree, "rev-parse", "HEAD"))
	start := time.Now()
	_, err := mg.New(CreateOptions{Slug: "slow"})
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "setup hook 1 (sleep 3031 & sleep 3032)") || !strings.Contains(err.Error(), "hook_timeout = 1s") {
		t.Fatalf("New: %v", err)
	}
	if took > time.Second+sandbox.WaitGrace+5*time.Second {
		t.Errorf("New returned after %s", took)
	}
	if left, _ := exec.Command("pgrep", "-f", "sleep 303[12]").Output(); len(left) > 0 {
		t.Errorf("a process the hook started outlived it: %s", left)
	}
}
