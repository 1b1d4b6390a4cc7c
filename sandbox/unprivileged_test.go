package sandbox_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// nobody is the unprivileged uid the confinement is tried as when the
// tests run as root: root's capabilities would make the same-uid case
// meaningless for everything but Landlock itself.
const nobody = "65534"

// The same attempts as an unprivileged user against a process of that
// same user: an unconfined process holding a token (as the daemon or a
// dispatch does), a directory of the user's outside the policy. Landlock
// refuses what file modes and the same uid would allow.
func TestConfinementHoldsForTheSameUnprivilegedUser(t *testing.T) {
	needLandlock(t)
	if os.Geteuid() != 0 {
		t.Skip("runs as root, to drop to another uid (the other tests already run as this unprivileged user)")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("no setpriv")
	}
	root, err := os.MkdirTemp("", "sandbox-uid-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	os.Chmod(root, 0o755)
	exe := filepath.Join(root, "launcher")
	copyFile(t, mustExecutable(t), exe)
	work, mine := filepath.Join(root, "work"), filepath.Join(root, "mine")
	for _, d := range []string{work, mine} {
		os.Mkdir(d, 0o755)
		exec.Command("chown", nobody+":"+nobody, d).Run()
	}
	asNobody := func(args ...string) *exec.Cmd {
		cmd := exec.Command(setpriv, append([]string{"--reuid", nobody, "--regid", nobody, "--clear-groups", "--"}, args...)...)
		cmd.Env = []string{"PATH=/usr/bin:/bin", beLauncher + "=1"}
		return cmd
	}
	// The victim: same uid, unconfined, a token in its environment.
	victim := asNobody("/bin/sh", "-c", "exec sleep 60")
	victim.Env = append(victim.Env, "GH_TOKEN=ghp_victimToken456")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	defer victim.Process.Kill()
	time.Sleep(50 * time.Millisecond)
	p := system()
	p.Write = []string{work}
	script := fmt.Sprintf(`
		id -u
		echo ok > %[1]s/a && echo wrote-work
		echo x > %[2]s/b 2>/dev/null || echo refused-mine
		tr '\0' '\n' < /proc/%[3]d/environ 2>/dev/null | grep GH_TOKEN || echo refused-environ
		kill -0 %[3]d 2>/dev/null && echo signalled || echo refused-signal
	`, work, mine, victim.Process.Pid)
	out, _ := asNobody(exe, p.Encode(), "--", "/bin/sh", "-c", script).CombinedOutput()
	for _, want := range []string{nobody, "wrote-work", "refused-mine", "refused-environ", "refused-signal"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "ghp_victimToken456") {
		t.Fatalf("the token was read:\n%s", out)
	}
	// Unconfined, the same uid reads it: the refusal above is the sandbox's.
	plain, _ := asNobody("/bin/sh", "-c", fmt.Sprintf("tr '\\0' '\\n' < /proc/%d/environ", victim.Process.Pid)).CombinedOutput()
	if !strings.Contains(string(plain), "ghp_victimToken456") {
		t.Fatalf("the control case could not read the victim's environment either: %s", plain)
	}
	// An undumpable process (every git-agentproto command) is closed to
	// the same uid even unconfined.
	undumpable := asNobody(exe)
	undumpable.Env = []string{"PATH=/usr/bin:/bin", beUndumpable + "=1", "GH_TOKEN=ghp_undumpable789"}
	ready, err := undumpable.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := undumpable.Start(); err != nil {
		t.Fatal(err)
	}
	defer undumpable.Process.Kill()
	// Read only once it has made itself undumpable: a fixed wait lost
	// that race under -race on a loaded machine.
	if line, err := bufio.NewReader(ready).ReadString('\n'); err != nil || line != "undumpable\n" {
		t.Fatalf("the undumpable process did not start: %q, %v", line, err)
	}
	got, _ := asNobody("/bin/sh", "-c", fmt.Sprintf("tr '\\0' '\\n' < /proc/%d/environ", undumpable.Process.Pid)).CombinedOutput()
	if strings.Contains(string(got), "ghp_undumpable789") {
		t.Fatalf("an undumpable process's environment was read by its own uid: %s", got)
	}
}

func mustExecutable(t *testing.T) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

func copyFile(t *testing.T, from, to string) {
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	out.Close()
}
