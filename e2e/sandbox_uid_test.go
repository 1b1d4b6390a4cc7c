package e2e

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/testbin"
)

// unprivileged is the uid the hostile agent's attempts are made again as.
const unprivileged = "65534"

// The hostile agent's attempts, and those of the tests it writes (shell
// and Python; Go's would build the toolchain's cache anew), and the one
// that lies through the worktree's index, again as an
// unprivileged user who is both
// the agent's and the daemon's — a developer's machine, where neither
// side has root's capabilities and only the sandbox stands between them.
// The binaries are in a bin directory whose parent also holds that user's
// HOME and temporary directory (/srv/x/bin beside /srv/x/home): the
// sandbox, which reads a bin's parent as a toolchain's root, once opened
// HOME and the daemon's control token that way.
func TestHostileAgentIsConfinedAsAnUnprivilegedUser(t *testing.T) {
	if os.Getenv(testbin.BinEnv) != "" {
		t.Skip("this is the run as the other user")
	}
	if os.Geteuid() != 0 {
		t.Skip("runs as root, to drop to another uid (as any other user, TestHostileAgentIsConfinedByTheSandbox is this test)")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("no setpriv")
	}
	cwd, _ := os.Getwd()
	for d := cwd; d != "/"; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err != nil || fi.Mode().Perm()&0o005 != 0o005 {
			t.Skipf("%s is closed to other users, so another uid cannot run this package's tests", d)
		}
	}
	root, err := os.MkdirTemp("", "agentproto-uid-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	defer exec.Command("pkill", "-KILL", "-u", unprivileged, "-f", root).Run()
	os.Chmod(root, 0o755)
	bin, home, tmp := filepath.Join(root, "bin"), filepath.Join(root, "home"), filepath.Join(root, "tmp")
	for _, d := range []string{bin, home, tmp} {
		os.Mkdir(d, 0o755)
	}
	for _, d := range []string{home, tmp} {
		if out, err := exec.Command("chown", unprivileged+":"+unprivileged, d).CombinedOutput(); err != nil {
			t.Fatalf("chown: %v %s", err, out)
		}
	}
	self, _ := os.Executable()
	copyExecutable(t, self, filepath.Join(bin, "e2e.test"))
	built, _ := os.ReadDir(binDir)
	for _, e := range built {
		copyExecutable(t, filepath.Join(binDir, e.Name()), filepath.Join(bin, e.Name()))
	}
	cmd := exec.Command(setpriv, "--reuid", unprivileged, "--regid", unprivileged, "--clear-groups", "--",
		filepath.Join(bin, "e2e.test"), "-test.run", "^(TestHostileAgentIsConfinedByTheSandbox|TestGateRunsAgentTestsInTheSandbox|TestCheckpointCommitsTheDiskNotWhatTheAgentStaged)$/^(|shell|python)$", "-test.count=1", "-test.v")
	cmd.Dir = cwd
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + tmp, testbin.BinEnv + "=" + bin}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestHostileAgentIsConfinedByTheSandbox") ||
		!strings.Contains(string(out), "--- PASS: TestGateRunsAgentTestsInTheSandbox/shell") || !strings.Contains(string(out), "--- PASS: TestGateRunsAgentTestsInTheSandbox/python") ||
		!strings.Contains(string(out), "--- PASS: TestCheckpointCommitsTheDiskNotWhatTheAgentStaged") {
		t.Fatalf("as uid %s: %v\n%s", unprivileged, err, out)
	}
	if !strings.Contains(string(out), "the daemon's environment is closed to this uid too") {
		t.Fatalf("the run as uid %s did not run as that uid:\n%s", unprivileged, out)
	}
}

// copyExecutable copies an executable file, readable and runnable by all.
func copyExecutable(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
