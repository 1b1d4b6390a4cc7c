package sandbox_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentproto/agentproto/sandbox"
)

// The test binary is the launcher too (the helper-process pattern): with
// beLauncher set it runs sandbox.Main, and the launcher's own re-exec of
// itself lands here again.
const beLauncher = "AGENTPROTO_TEST_BE_LAUNCHER"

// beUndumpable makes the test binary an undumpable process that says so
// on stdout, then sleeps.
const beUndumpable = "AGENTPROTO_TEST_BE_UNDUMPABLE"

func TestMain(m *testing.M) {
	if os.Getenv(beLauncher) == "1" {
		os.Exit(sandbox.Main(os.Args[1:]))
	}
	if os.Getenv(beUndumpable) == "1" {
		sandbox.Undumpable()
		os.Stdout.WriteString("undumpable\n") // the test reads only after this
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func needLandlock(t *testing.T) {
	t.Helper()
	if s := sandbox.Probe(); s.ABI < sandbox.MinABI {
		t.Skipf("no Landlock ABI %d here (ABI %d)", sandbox.MinABI, s.ABI)
	}
}

// launch runs script with sh under the launcher confined to p, and returns
// its output and exit code.
func launch(t *testing.T, p sandbox.Policy, env []string, script string) (string, int) {
	t.Helper()
	cmd := launcherCmd(t, p, env, script)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.String(), ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), 0
}

func launcherCmd(t *testing.T, p sandbox.Policy, env []string, script string) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, p.Encode(), "--", "/bin/sh", "-c", script)
	cmd.Env = append([]string{beLauncher + "=1", "PATH=/usr/bin:/bin"}, env...)
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// system is what a shell needs to run at all.
func system() sandbox.Policy {
	return sandbox.Policy{Read: []string{"/usr", "/bin", "/lib", "/lib64", "/etc", "/proc"}, Devices: []string{"/dev/null"}}
}

// A confined shell writes where the policy lets it and nowhere else, and
// reads nothing it was not given, whatever the file modes say.
func TestConfinedTreeWritesAndReadsOnlyWhatThePolicyNames(t *testing.T) {
	needLandlock(t)
	root := t.TempDir()
	work, ro, secret := filepath.Join(root, "work"), filepath.Join(root, "ro"), filepath.Join(root, "secret")
	for _, d := range []string{work, ro, secret} {
		os.Mkdir(d, 0o755)
	}
	os.WriteFile(filepath.Join(ro, "f"), []byte("readable"), 0o644)
	os.WriteFile(filepath.Join(secret, "token"), []byte("ghp_secret"), 0o644)
	p := system()
	p.Read, p.Write = append(p.Read, ro), []string{work}
	out, code := launch(t, p, nil, fmt.Sprintf(`
		echo ok > %[1]s/a && echo wrote-work
		echo x > %[2]s/b 2>/dev/null || echo refused-ro
		echo x > %[3]s/c 2>/dev/null || echo refused-root
		cat %[2]s/f
		cat %[4]s/token 2>/dev/null || echo refused-secret
		mkdir %[3]s/d 2>/dev/null || echo refused-mkdir
		ln -s %[4]s/token %[1]s/l && cat %[1]s/l 2>/dev/null || echo refused-through-link
	`, work, ro, root, secret))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	for _, want := range []string{"wrote-work", "refused-ro", "refused-root", "readable", "refused-secret", "refused-mkdir", "refused-through-link"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(ro, "b")); err == nil {
		t.Error("the read-only directory was written")
	}
	if strings.Contains(out, "ghp_secret") {
		t.Error("the secret was read")
	}
}

// The tree cannot signal, nor read the environment or memory of, a process
// outside it, though it runs as the same user (root included: the
// launcher drops its capabilities): here a process holding a token in the
// environment it was started with, as the daemon or a dispatch would.
func TestConfinedTreeCannotReachProcessesOutside(t *testing.T) {
	needLandlock(t)
	victim := exec.Command("/bin/sleep", "60")
	victim.Env = []string{"GH_TOKEN=ghp_outsideToken123"}
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	defer victim.Process.Kill()
	pid := victim.Process.Pid
	probe := fmt.Sprintf(`
		kill -0 %[1]d 2>/dev/null && echo signalled || echo refused-signal
		tr '\0' '\n' < /proc/%[1]d/environ 2>/dev/null | grep GH_TOKEN || echo refused-environ
		head -c 1 /proc/%[1]d/mem 2>/dev/null && echo read-mem || echo refused-mem
		kill -0 $$ && echo self-ok
	`, pid)
	// Unconfined, the same probe reads it: what is refused below is the
	// sandbox's doing.
	if out, _ := exec.Command("/bin/sh", "-c", probe).CombinedOutput(); !strings.Contains(string(out), "ghp_outsideToken123") {
		t.Fatalf("the control read nothing: %s", out)
	}
	out, _ := launch(t, system(), nil, probe+"\ngrep CapEff /proc/self/status")
	for _, want := range []string{"refused-signal", "refused-environ", "refused-mem", "self-ok", "CapEff:\t0000000000000000"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "ghp_outsideToken123") {
		t.Fatalf("the token was read from outside:\n%s", out)
	}
}

// The launcher exits with its program's code.
func TestLauncherPassesTheExitCode(t *testing.T) {
	needLandlock(t)
	if out, code := launch(t, system(), nil, "exit 7"); code != 7 {
		t.Fatalf("exit %d, want 7: %s", code, out)
	}
}

func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i > 0 && len(b) > i+2 && b[i+2] != 'Z'
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if !alive(pid) {
			return
		}
	}
	syscall.Kill(pid, syscall.SIGKILL)
	t.Fatalf("process %d outlived its sandbox", pid)
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(path)
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
			return pid
		}
	}
	t.Fatalf("no pid in %s", path)
	return 0
}

// A process that detached itself (setsid, then its parent exited) does
// not outlive the program it came from: the launcher is its subreaper and
// kills it when the program ends.
func TestDetachedOrphanEndsWithTheProgram(t *testing.T) {
	needLandlock(t)
	work := t.TempDir()
	p := system()
	p.Write = []string{work}
	pidFile := filepath.Join(work, "orphan.pid")
	out, code := launch(t, p, nil, fmt.Sprintf(`(setsid sh -c 'echo $$ > %s; exec sleep 60' &) ; sleep 0.2; exit 0`, pidFile))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	waitGone(t, readPid(t, pidFile))
}

// Stopping the launcher (as the daemon does to end a session, and as its
// own death does through the parent-death signal) ends the whole tree,
// detached orphans included.
func TestStoppedLauncherEndsItsTree(t *testing.T) {
	needLandlock(t)
	work := t.TempDir()
	p := system()
	p.Write = []string{work}
	pidFile := filepath.Join(work, "orphan.pid")
	cmd := launcherCmd(t, p, nil, fmt.Sprintf(`(setsid sh -c 'echo $$ > %s; exec sleep 60' &) ; exec sleep 60`, pidFile))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	orphan := readPid(t, pidFile)
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 128+int(syscall.SIGTERM) {
		t.Fatalf("launcher ended with %v, want exit %d", err, 128+int(syscall.SIGTERM))
	}
	waitGone(t, orphan)
}

// The confined tree cannot kill the launcher holding it: the orphans it
// would leave could not be found again.
func TestConfinedTreeCannotKillItsLauncher(t *testing.T) {
	needLandlock(t)
	out, _ := launch(t, system(), nil, `kill -9 $PPID 2>/dev/null && echo killed || echo refused-kill; kill -0 $PPID 2>/dev/null || echo refused-probe`)
	if !strings.Contains(out, "refused-kill") {
		t.Fatalf("the tree killed its launcher:\n%s", out)
	}
}

// A bad policy or usage is refused before anything runs.
func TestLauncherRefusesBadInput(t *testing.T) {
	exe, _ := os.Executable()
	for _, args := range [][]string{
		{`{"read":["relative"]}`, "--", "/bin/true"},
		{`{"bogus":[]}`, "--", "/bin/true"},
		{`{}`, "/bin/true"},
	} {
		cmd := exec.Command(exe, args...)
		cmd.Env = []string{beLauncher + "=1"}
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 126 || len(out) == 0 {
			t.Errorf("%q: %v %s, want exit 126 with a message", args, err, out)
		}
	}
}
