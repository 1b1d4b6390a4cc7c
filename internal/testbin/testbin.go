// Package testbin builds the git-agentproto binary once for a test process,
// so end-to-end tests and benchmarks run the real thing.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Build compiles git-agentproto, the sessions daemon, the scripted and
// exec adapters and the sandbox launcher into a new temporary directory
// and returns that directory; the caller removes it.
func Build() (string, error) {
	dir, err := os.MkdirTemp("", "agentproto-bin-")
	if err != nil {
		return "", err
	}
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	build := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "./cmd/git-agentproto", "./cmd/agentproto-sessions", "./cmd/agentproto-mcp", "./cmd/agentproto-adapter-scripted", "./cmd/agentproto-adapter-exec", "./cmd/agentproto-sandbox")
	build.Dir = root
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // as make build does
	out, err := build.CombinedOutput()
	if err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("building git-agentproto: %v\n%s", err, out)
	}
	return dir, nil
}

// Env returns the environment for processes under test: binDir first on
// PATH, no user or system git config (HOME is home), a fixed identity.
func Env(binDir, home string) []string {
	env := []string{}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GIT_") || k == "HOME" || k == "XDG_CONFIG_HOME" || k == "XDG_STATE_HOME" || k == "PATH" || strings.HasPrefix(k, "AGENTPROTO_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"),
		// Daemons started by tests stop soon after the test is done.
		"AGENTPROTO_DAEMON_IDLE=5s",
		"HOME="+home,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com",
	)
}

// BinEnv names a directory of binaries already built (see Main).
const BinEnv = "AGENTPROTO_TEST_BIN"

// Main builds the binaries, points *dir at them, runs the tests and cleans
// up: the TestMain of every package that runs the real binary.
// With AGENTPROTO_TEST_BIN set it uses the binaries there instead: a
// test run again as another user reuses its parent's build.
func Main(m interface{ Run() int }, dir *string) {
	if d := os.Getenv(BinEnv); d != "" {
		*dir = d
		os.Exit(m.Run())
	}
	d, err := Build()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	*dir = d
	code := m.Run()
	os.RemoveAll(d)
	os.Exit(code)
}

// StopDaemon ends the sessions daemon of the repository in dir, if one
// runs, and waits until it has let go of its lock: tests call it before
// removing a repository the daemon may still write into.
func StopDaemon(dir string) error {
	lockPath := filepath.Join(dir, ".git", "agentproto", "daemon.lock")
	free := func() bool {
		f, err := os.OpenFile(lockPath, os.O_RDWR, 0)
		if err != nil {
			return true
		}
		defer f.Close()
		return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
	}
	if free() {
		return nil
	}
	b, _ := os.ReadFile(filepath.Join(dir, ".git", "agentproto", "daemon.log"))
	pids := regexp.MustCompile(`\(pid (\d+)\)`).FindAllStringSubmatch(string(b), -1)
	if len(pids) == 0 {
		return fmt.Errorf("a daemon holds %s but its log names no pid", lockPath)
	}
	pid, _ := strconv.Atoi(pids[len(pids)-1][1])
	syscall.Kill(pid, syscall.SIGTERM)
	for i := 0; i < 200 && !free(); i++ {
		time.Sleep(50 * time.Millisecond)
	}
	if !free() {
		return fmt.Errorf("the sessions daemon (pid %d) did not stop within 10s of SIGTERM", pid)
	}
	return nil
}
