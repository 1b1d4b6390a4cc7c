package gitref

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHelperProcessUpdate is not a test: the durability test runs it under
// strace to watch the system calls of one Update.
func TestHelperProcessUpdate(t *testing.T) {
	common := os.Getenv("GITREF_HELPER_COMMON")
	if common == "" {
		t.Skip("helper process")
	}
	if err := (Store{Common: common}).Update("refs/agentproto/ledger/w-sync", os.Getenv("GITREF_HELPER_OID"), ""); err != nil {
		t.Fatal(err)
	}
}

// The lock file reaches the disk before the rename makes it the ref, and
// the directory after it: a crash leaves the old value or the new one.
func TestUpdateSyncsTheLockBeforeTheRename(t *testing.T) {
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("needs strace to watch the system calls")
	}
	dir, c := newRepo(t)
	common := filepath.Join(dir, ".git")
	trace := filepath.Join(t.TempDir(), "trace")
	cmd := exec.Command(strace, "-f", "-y", "-qq", "-e", "trace=fsync,fdatasync,rename,renameat,renameat2", "-o", trace,
		os.Args[0], "-test.run=^TestHelperProcessUpdate$", "-test.count=1")
	cmd.Env = append(os.Environ(), "GITREF_HELPER_COMMON="+common, "GITREF_HELPER_OID="+c)
	if out, err := cmd.CombinedOutput(); err != nil {
		if strings.Contains(string(out), "PTRACE") || strings.Contains(string(out), "ptrace") {
			t.Skipf("strace cannot trace here: %s", out)
		}
		t.Fatalf("%v\n%s", err, out)
	}
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	ref := filepath.Join(common, "refs/agentproto/ledger/w-sync")
	syncLock, rename, syncDir := -1, -1, -1
	for i, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.Contains(line, "fsync(") && strings.Contains(line, "<"+ref+".lock>"):
			syncLock = i
		case strings.Contains(line, "rename") && strings.Contains(line, `"`+ref+`.lock"`) && strings.Contains(line, "= 0"):
			rename = i
		case strings.Contains(line, "fsync(") && strings.Contains(line, "<"+filepath.Dir(ref)+">"):
			syncDir = i
		}
	}
	if rename < 0 {
		t.Fatalf("no rename of the lock in the trace:\n%s", b)
	}
	if syncLock < 0 || syncLock > rename {
		t.Errorf("the lock file is not synced before its rename (fsync at line %d, rename at %d):\n%s", syncLock, rename, b)
	}
	if syncDir < rename {
		t.Errorf("the directory is not synced after the rename (fsync at line %d, rename at %d):\n%s", syncDir, rename, b)
	}
}
