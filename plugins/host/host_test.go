package host_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/plugins/host"
	"github.com/agentproto/agentproto/plugins/sdk"
)

// The helper-process pattern: the test binary re-invoked as a misbehaving
// plugin.
func TestMain(m *testing.M) {
	switch os.Getenv("HOST_TEST_PLUGIN") {
	case "garbage":
		fmt.Println("hello, I am not a plugin")
		os.Exit(0)
	case "exit":
		fmt.Fprintln(os.Stderr, "missing API key")
		os.Exit(2)
	case "hang":
		time.Sleep(time.Hour)
	case "automtls":
		serveOnAutoMTLS()
		os.Exit(0)
	}
	code := m.Run()
	if scriptedBin != "" {
		os.Remove(scriptedBin)
	}
	os.Exit(code)
}

var scriptedBin string

func scripted(t *testing.T) string {
	t.Helper()
	if scriptedBin != "" {
		return scriptedBin
	}
	bin := filepath.Join(os.TempDir(), fmt.Sprintf("agentproto-adapter-scripted-%d", os.Getpid()))
	build := exec.Command("go", "build", "-o", bin, "github.com/agentproto/agentproto/cmd/agentproto-adapter-scripted")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		t.Fatal(err)
	}
	scriptedBin = bin
	return bin
}

func env() []string { return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")} }

func TestMisbehavingPluginsFailCleanly(t *testing.T) {
	self, _ := os.Executable()
	for _, mode := range []string{"garbage", "exit", "hang"} {
		t.Run(mode, func(t *testing.T) {
			start := time.Now()
			c, err := host.Launch(host.Spec{Name: mode, Path: self},
				host.LaunchOptions{Env: append(env(), "HOST_TEST_PLUGIN="+mode), StartTimeout: 2 * time.Second})
			if err == nil {
				c.Kill()
				t.Fatal("launch succeeded")
			}
			if !strings.Contains(err.Error(), "failed to start") {
				t.Fatalf("err = %v", err)
			}
			if mode == "exit" && !strings.Contains(err.Error(), "missing API key") {
				t.Fatalf("stderr tail missing from %v", err)
			}
			if time.Since(start) > 10*time.Second {
				t.Fatalf("took %v", time.Since(start))
			}
		})
	}
}

func TestPinnedChecksum(t *testing.T) {
	bin := scripted(t)
	sum, err := host.FileSHA256(bin)
	if err != nil {
		t.Fatal(err)
	}
	c, err := host.Launch(host.Spec{Name: "scripted", Path: bin, SHA256: sum}, host.LaunchOptions{Env: env()})
	if err != nil {
		t.Fatal(err)
	}
	c.Kill()
	// Launch twice with the same pin: each launch gets a fresh hash.
	c, err = host.Launch(host.Spec{Name: "scripted", Path: bin, SHA256: sum}, host.LaunchOptions{Env: env()})
	if err != nil {
		t.Fatal(err)
	}
	c.Kill()
	other := sha256.Sum256([]byte("another binary"))
	_, err = host.Launch(host.Spec{Name: "scripted", Path: bin, SHA256: hex.EncodeToString(other[:])}, host.LaunchOptions{Env: env()})
	if fault.KindOf(err) != fault.Refused || !strings.Contains(err.Error(), "is pinned") || !strings.Contains(err.Error(), sum) {
		t.Fatalf("changed binary: %v (want the refusal naming the binary's sha256 %s)", err, sum)
	}
	// A pin that is no sha256 at all never launches unchecked.
	for _, bad := range []string{"not-hex", sum[:40]} {
		_, err = host.Launch(host.Spec{Name: "scripted", Path: bin, SHA256: bad}, host.LaunchOptions{Env: env()})
		if fault.KindOf(err) != fault.Invalid || !strings.Contains(err.Error(), "not 64 hex digits") {
			t.Fatalf("pin %q: %v", bad, err)
		}
	}
}

func script(lines ...string) string {
	return "```agentproto-script\n" + strings.Join(lines, "\n") + "\n```"
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// Killing a session kills the agent's children too (no orphans), even when
// the adapter ignores Terminate.
func TestKillReachesTheWholeProcessGroup(t *testing.T) {
	c, err := host.Launch(host.Spec{Name: "scripted", Path: scripted(t)}, host.LaunchOptions{Env: env()})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	pidFile := filepath.Join(dir, "child.pid")
	if err := c.Start(ctx, sdk.StartRequest{SessionID: "s", Dir: dir,
		InitialPrompt: script(`{"op":"spawn","cmd":"echo $$ > child.pid; exec sleep 300"}`, `{"op":"hang"}`)}); err != nil {
		t.Fatal(err)
	}
	var childPid int
	for i := 0; i < 100 && childPid == 0; i++ {
		time.Sleep(50 * time.Millisecond)
		b, _ := os.ReadFile(pidFile)
		childPid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	if childPid == 0 || !alive(childPid) {
		t.Fatalf("child not running (pid %d)", childPid)
	}
	// The adapter hangs: Terminate does not return in time.
	tctx, tcancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	if err := c.Terminate(tctx); err == nil {
		t.Fatal("a hung adapter answered Terminate")
	}
	tcancel()
	pluginPid := c.Pid()
	c.Kill()
	for i := 0; i < 100 && (alive(childPid) || alive(pluginPid)); i++ {
		time.Sleep(20 * time.Millisecond)
		// Reap zombies of our own children (the plugin).
		var ws syscall.WaitStatus
		syscall.Wait4(pluginPid, &ws, syscall.WNOHANG, nil)
	}
	if alive(childPid) {
		t.Fatalf("the agent's child %d survived the kill", childPid)
	}
}

// A plugin that crashes mid-session ends the event stream; the stderr tail
// says why.
func TestCrashEndsTheStreamWithStderr(t *testing.T) {
	c, err := host.Launch(host.Spec{Name: "scripted", Path: scripted(t)}, host.LaunchOptions{Env: env()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Kill()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := c.Start(ctx, sdk.StartRequest{SessionID: "s", Dir: t.TempDir(), InitialPrompt: script(`{"op":"say","text":"about to crash"}`, `{"op":"sleep","ms":200}`, `{"op":"crash"}`)}); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	err = c.Events(ctx, 0, func(e *host.Event) error {
		out.Write(e.Data)
		return nil
	})
	if err == nil {
		t.Fatal("the stream of a crashed plugin ended cleanly")
	}
	if !strings.Contains(err.Error(), "adapter scripted exited or closed its connection") || strings.Contains(err.Error(), "rpc error") {
		t.Fatalf("err = %v", err)
	}
	time.Sleep(100 * time.Millisecond)
	if !strings.Contains(c.StderrTail(), "crashing on purpose") {
		t.Fatalf("stderr tail = %q", c.StderrTail())
	}
}

// The plugin's go-plugin socket lives in a directory of its own under
// SocketDir, and Kill removes it: nothing is left in the temp dir.
func TestSocketDirGoesWithThePlugin(t *testing.T) {
	base := t.TempDir()
	c, err := host.Launch(host.Spec{Name: "scripted", Path: scripted(t)}, host.LaunchOptions{Env: env(), SocketDir: base, SocketPrefix: "p-"})
	if err != nil {
		t.Fatal(err)
	}
	socks, _ := filepath.Glob(filepath.Join(base, "p-*", "plugin*"))
	if len(socks) != 1 || c.SocketDir() != filepath.Dir(socks[0]) {
		t.Fatalf("sockets %v, dir %s", socks, c.SocketDir())
	}
	if fi, err := os.Lstat(socks[0]); err != nil || fi.Mode()&os.ModeSocket == 0 {
		t.Fatalf("%s: %v %v", socks[0], fi, err)
	}
	c.Kill()
	if left, _ := os.ReadDir(base); len(left) != 0 {
		t.Fatalf("left after Kill: %v", left)
	}
}
