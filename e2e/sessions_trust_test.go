package e2e

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as a socket peer run as another user: a squatter
// listening where the daemon should be, or a client dialing the daemon.
// It prints how many bytes it received.
func init() {
	mode, sock := os.Getenv("E2E_SOCKET_PEER"), os.Getenv("E2E_SOCKET")
	switch mode {
	case "":
		return
	case "listen":
		ln, err := net.Listen("unix", sock)
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println("ready")
		ln.(*net.UnixListener).SetDeadline(time.Now().Add(60 * time.Second))
		conn, err := ln.Accept()
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println("got", readFor(conn, 2*time.Second), "bytes")
	case "dial":
		conn, err := net.Dial("unix", sock)
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		conn.Write([]byte(os.Getenv("E2E_REQUEST") + "\n"))
		fmt.Println("got", readFor(conn, 5*time.Second), "bytes")
	}
	os.Exit(0)
}

func readFor(conn net.Conn, d time.Duration) int {
	conn.SetReadDeadline(time.Now().Add(d))
	n, _ := io.Copy(io.Discard, conn)
	return int(n)
}

// shEnv is sh with extra variables laid over the test environment.
func shEnv(t *testing.T, dir string, extra []string, name string, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(gitEnv(homeOf(t)), extra...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	return out.String(), errOut.String(), err
}

// privateTmp is a temp dir of the test's own, used as TMPDIR with
// XDG_RUNTIME_DIR unset: the daemon's runtime dir lands in it, away from
// the shared one. Call it before newRepo so the daemon stops first.
func privateTmp(t *testing.T) (string, []string) {
	t.Helper()
	tmp, err := os.MkdirTemp("", "ap-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	return tmp, []string{"TMPDIR=" + tmp, "XDG_RUNTIME_DIR="}
}

func runtimeDir(tmp string) string {
	return filepath.Join(tmp, fmt.Sprintf("agentproto-%d", os.Getuid()))
}

func socketOf(tmp, repo string) string {
	sum := sha256.Sum256([]byte(filepath.Join(repo, ".git")))
	return filepath.Join(runtimeDir(tmp), hex.EncodeToString(sum[:8])+".sock")
}

func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("acting as another local user needs root")
	}
}

// asNobody starts the test binary as uid 65534 in a socket peer mode.
func asNobody(t *testing.T, env ...string) (*exec.Cmd, *bufio.Reader) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The build dir is private to us: copy the binary where nobody can
	// run it.
	dir, err := os.MkdirTemp("", "ap-peer-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "peer")
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Env = append([]string{"PATH=/usr/bin:/bin"}, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534, NoSetGroups: true}}
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, bufio.NewReader(out)
}

// A runtime directory another user could enter or owns is refused before
// anything is sent: the request (environment, prompt) never reaches
// whoever listens in it.
func TestSessionsRefuseAnUntrustedRuntimeDir(t *testing.T) {
	cases := []struct {
		name, want string
		make       func(t *testing.T, dir string)
	}{
		{"open mode", "lets other users in; run chmod 700", func(t *testing.T, dir string) {
			os.Mkdir(dir, 0o777)
			os.Chmod(dir, 0o777)
		}},
		{"another owner", "belongs to uid 65534, not to you", func(t *testing.T, dir string) {
			needRoot(t)
			os.Mkdir(dir, 0o700)
			if err := os.Chown(dir, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}},
		{"symlink", "it is not a directory", func(t *testing.T, dir string) {
			target := filepath.Join(filepath.Dir(dir), "elsewhere")
			os.Mkdir(target, 0o700)
			os.Symlink(target, dir)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tmp, env := privateTmp(t)
			dir := newRepo(t)
			rd := runtimeDir(tmp)
			c.make(t, rd)
			// Someone listens where the socket goes.
			ln, err := net.Listen("unix", socketOf(tmp, dir))
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			got := make(chan int, 1)
			go func() {
				conn, err := ln.Accept()
				if err != nil {
					got <- -1
					return
				}
				got <- readFor(conn, 2*time.Second)
				conn.Close()
			}()
			_, errOut, err := shEnv(t, dir, append(env, "GH_TOKEN=ghp_squattedTokenValue1234567890"), "git", "agentproto", "sessions", "start",
				"--adapter", "scripted", "--dir", dir, "--prompt", "hi")
			if code := exitCode(err); code != 5 || !strings.Contains(errOut, rd) || !strings.Contains(errOut, c.want) || !strings.Contains(errOut, "XDG_RUNTIME_DIR") {
				t.Fatalf("exit %d, stderr:\n%s", code, errOut)
			}
			ln.Close()
			if n := <-got; n != -1 {
				t.Fatalf("the listener in the untrusted directory was reached (%d bytes)", n)
			}
			if _, err := os.Stat(filepath.Join(dir, ".git", "agentproto", "daemon.lock")); err == nil {
				t.Fatal("a daemon was started")
			}
			// Commands that only ask whether a daemon runs say why they
			// cannot, rather than "none runs".
			_, errOut, err = shEnv(t, dir, env, "git", "agentproto", "sessions", "ls")
			if err != nil || !strings.Contains(errOut, "warning: refusing the sessions runtime directory "+rd) {
				t.Fatalf("ls: %v %s", err, errOut)
			}
			_, errOut, err = shEnv(t, dir, env, "git", "agentproto", "sessions", "gc")
			if exitCode(err) != 5 || !strings.Contains(errOut, c.want) {
				t.Fatalf("gc: exit %d %s", exitCode(err), errOut)
			}
		})
	}
}

// A socket in our own directory but served by another user (placed there
// by whoever could) gets nothing from the client: SO_PEERCRED names the
// listener's uid.
func TestSessionsClientRefusesADaemonOfAnotherUser(t *testing.T) {
	needRoot(t)
	tmp, env := privateTmp(t)
	dir := newRepo(t)
	pub, err := os.MkdirTemp("", "ap-pub-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(pub)
	os.Chmod(pub, 0o777)
	squat := filepath.Join(pub, "s.sock")
	_, out := asNobody(t, "E2E_SOCKET_PEER=listen", "E2E_SOCKET="+squat)
	if line, _ := out.ReadString('\n'); line != "ready\n" {
		t.Fatalf("squatter: %q", line)
	}
	if err := os.Mkdir(runtimeDir(tmp), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(squat, socketOf(tmp, dir)); err != nil {
		t.Fatal(err)
	}
	_, errOut, err := shEnv(t, dir, env, "git", "agentproto", "sessions", "start", "--adapter", "scripted", "--dir", dir, "--prompt", "hi")
	if code := exitCode(err); code != 5 || !strings.Contains(errOut, "runs as uid 65534, not as you") || !strings.Contains(errOut, socketOf(tmp, dir)) {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	if line, _ := out.ReadString('\n'); line != "got 0 bytes\n" {
		t.Fatalf("the squatter received a request: %q", line)
	}
}

// The daemon serves its own user only: a connection from another uid is
// closed unread, and its request does nothing.
func TestSessionsDaemonRefusesAnotherUser(t *testing.T) {
	needRoot(t)
	tmp, env := privateTmp(t)
	dir := newRepo(t)
	id, errOut, err := shEnv(t, dir, env, "git", "agentproto", "sessions", "start", "--adapter", "scripted", "--dir", dir, "--prompt", "hi")
	if err != nil {
		t.Fatalf("start: %v %s", err, errOut)
	}
	shEnv(t, dir, env, "git", "agentproto", "sessions", "wait", strings.TrimSpace(id), "--timeout", "20s")
	// Give the other user a way to the socket, as a mistaken mode would.
	pub, err := os.MkdirTemp("", "ap-pub-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(pub)
	os.Chmod(pub, 0o755)
	link := filepath.Join(pub, "d.sock")
	if err := os.Link(socketOf(tmp, dir), link); err != nil {
		t.Fatal(err)
	}
	os.Chmod(link, 0o777)
	scripted := filepath.Join(binDir, "agentproto-adapter-scripted")
	req := fmt.Sprintf(`{"op":"start","start":{"adapter":"scripted","path":%q,"dir":%q,"prompt":"%s","env":["PATH=/usr/bin:/bin"]}}`,
		scripted, dir, strings.ReplaceAll(script(`{"op":"write","path":"pwned.txt","content":"x"}`), "\n", `\n`))
	_, out := asNobody(t, "E2E_SOCKET_PEER=dial", "E2E_SOCKET="+link, "E2E_REQUEST="+req)
	if line, _ := out.ReadString('\n'); line != "got 0 bytes\n" {
		t.Fatalf("the daemon answered another user: %q", line)
	}
	time.Sleep(300 * time.Millisecond) // a session it wrongly started would write by now
	if _, err := os.Stat(filepath.Join(dir, "pwned.txt")); err == nil {
		t.Fatal("the daemon ran another user's request")
	}
	log, _ := os.ReadFile(filepath.Join(dir, ".git", "agentproto", "daemon.log"))
	if !strings.Contains(string(log), "refused a connection from uid 65534") {
		t.Fatalf("daemon.log:\n%s", log)
	}
}

// sessions start sends the daemon only what adapters get: a token in the
// caller's environment reaches neither the daemon nor the adapter.
func TestSessionsStartSendsOnlyTheAdapterEnvironment(t *testing.T) {
	tmp, env := privateTmp(t)
	_ = tmp
	dir := newRepo(t)
	env = append(env, "GH_TOKEN=ghp_e2eNotForTheDaemon0123456789", "SOME_SERVICE_SECRET=hunter2-e2e", "AGENTPROTO_E2E_MARK=kept")
	os.Mkdir(filepath.Join(dir, "out"), 0o755) // no new entry at the top of the main checkout
	id, errOut, err := shEnv(t, dir, env, "git", "agentproto", "sessions", "start", "--adapter", "scripted", "--dir", dir,
		"--prompt", script(`{"op":"run","cmd":"env > out/adapter-env.txt"}`))
	if err != nil {
		t.Fatalf("start: %v %s", err, errOut)
	}
	if _, errOut, err := shEnv(t, dir, env, "git", "agentproto", "sessions", "wait", strings.TrimSpace(id), "--timeout", "20s"); err != nil {
		t.Fatalf("wait: %v %s", err, errOut)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "out", "adapter-env.txt"))
	if !strings.Contains(string(got), "AGENTPROTO_E2E_MARK=kept") || strings.Contains(string(got), "ghp_e2e") || strings.Contains(string(got), "hunter2") {
		t.Fatalf("adapter environment:\n%s", got)
	}
	log, _ := os.ReadFile(filepath.Join(dir, ".git", "agentproto", "daemon.log"))
	line := ""
	for _, l := range strings.Split(string(log), "\n") {
		if strings.Contains(l, "start "+strings.TrimSpace(id)+": adapter scripted, environment ") {
			line = l
		}
	}
	if !strings.Contains(line, "AGENTPROTO_E2E_MARK") || !strings.Contains(line, "PATH") || strings.Contains(line, "GH_TOKEN") || strings.Contains(line, "SOME_SERVICE_SECRET") {
		t.Fatalf("the daemon received: %q\n%s", line, log)
	}
}
