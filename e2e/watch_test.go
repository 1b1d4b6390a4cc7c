package e2e

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// tmuxPane runs a command in a detached tmux session of its own server,
// size 80×24, and reads the screen back as a person would see it.
type tmuxPane struct {
	t      *testing.T
	dir    string
	socket string
}

func startTmux(t *testing.T, dir string, env []string, command string) *tmuxPane {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	p := &tmuxPane{t: t, dir: dir, socket: filepath.Join(t.TempDir(), "tmux.sock")}
	cmd := exec.Command("tmux", "-S", p.socket, "-f", "/dev/null", "new-session", "-d", "-x", "80", "-y", "24", "-c", dir, command)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command("tmux", "-S", p.socket, "kill-server").Run() })
	return p
}

func (p *tmuxPane) keys(keys ...string) {
	p.t.Helper()
	args := append([]string{"-S", p.socket, "send-keys", "-t", "0"}, keys...)
	if out, err := exec.Command("tmux", args...).CombinedOutput(); err != nil {
		p.t.Fatalf("tmux send-keys %v: %v\n%s", keys, err, out)
	}
}

// screen is the pane's text; escapes keeps the terminal's SGR sequences.
func (p *tmuxPane) screen(escapes bool) string {
	args := []string{"-S", p.socket, "capture-pane", "-p", "-t", "0"}
	if escapes {
		args = append(args, "-e")
	}
	out, err := exec.Command("tmux", args...).Output()
	if err != nil {
		return ""
	}
	return string(out)
}

// waitFor polls the screen until every pattern matches, or fails showing it.
func (p *tmuxPane) waitFor(what string, patterns ...string) string {
	p.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		s := p.screen(false)
		ok := true
		for _, pat := range patterns {
			if !regexp.MustCompile(pat).MatchString(s) {
				ok = false
			}
		}
		if ok {
			return s
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("%s: the screen never showed %q:\n%s", what, patterns, s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestWatchFollowsADispatchInTmux(t *testing.T) {
	dir := pipelineRepo(t, `{"op":"sleep","ms":4000}`, "lower lib/lower.sh")
	env := append(gitEnv(homeOf(t)), "NO_COLOR=1")
	pane := startTmux(t, dir, env, "git agentproto watch demo")
	pane.waitFor("before dispatch", `WP1 +planned`, `WP2 +planned`, `SESSIONS`)

	dispatch := exec.Command("git", "agentproto", "dispatch", "demo")
	dispatch.Dir, dispatch.Env = dir, gitEnv(homeOf(t))
	if err := dispatch.Start(); err != nil {
		t.Fatal(err)
	}
	// WP2's agent sleeps: the view shows it dispatched, its session running,
	// while WP1 is already through.
	pane.waitFor("during dispatch", `WP2 +dispatched`, `s-[0-9a-f]{12} +running`)
	if err := dispatch.Wait(); err != nil {
		t.Fatalf("dispatch: %v", err)
	}
	s := pane.waitFor("after dispatch", `WP0 +checkpointed +pass`, `WP1 +verified +pass`, `WP2 +verified +pass`)
	for i, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if n := len([]rune(l)); n > 80 || i >= 24 {
			t.Fatalf("line %d (%d cells) does not fit 80×24:\n%s", i, n, s)
		}
	}
	if c := colours(pane.screen(true)); c != "" {
		t.Errorf("NO_COLOR is set but the screen sets a colour (%s):\n%s", c, pane.screen(true))
	}

	// A session that ends its first turn and waits: prompt it from the view.
	id := strings.TrimSpace(must(t, dir, "git", "agentproto", "sessions", "start", "--adapter", "scripted", "--dir", dir, "--no-ping",
		"--label", "extra", "--prompt", "```agentproto-script\n{\"op\":\"say\",\"text\":\"extra is ready\"}\n```"))
	must(t, dir, "git", "agentproto", "sessions", "wait", id, "--until", "turn-end")
	pane.waitFor("new session", id+` +(settled|running)`)
	pane.keys("Tab") // to the sessions; live ones are listed first
	pane.waitFor("selected output", `OUTPUT `+id, `extra is ready`)
	pane.keys("p")
	pane.waitFor("prompt line", `prompt `+id+`:`)
	pane.keys("-l", "hello from watch")
	pane.keys("Enter")
	pane.waitFor("prompted", `prompted `+id, `hello from watch`)

	// Kill asks first; anything but y cancels.
	pane.keys("x")
	pane.waitFor("kill question", `kill `+id+`\? .*\[y/N\]`)
	pane.keys("n")
	pane.waitFor("cancelled", `cancelled`)
	ended := map[string]bool{"exited": true, "failed": true, "cleaned": true}
	if st := sessionState(dir, id); ended[st] {
		t.Fatalf("cancelled kill still killed the session: %s", st)
	}
	pane.keys("x")
	pane.waitFor("kill question again", `\[y/N\]`)
	pane.keys("y")
	pane.waitFor("killed", `killed `+id)
	if st := sessionState(dir, id); !ended[st] {
		t.Fatalf("session %s is %s after the kill", id, st)
	}

	// v verifies the selected work package (WP0, the first) from the view.
	pane.keys("Tab")
	pane.keys("v")
	pane.waitFor("verify", `demo WP0: pass`)
	pane.keys("q")
	deadline := time.Now().Add(10 * time.Second)
	for exec.Command("tmux", "-S", pane.socket, "has-session").Run() == nil {
		if time.Now().After(deadline) {
			t.Fatalf("q did not quit:\n%s", pane.screen(false))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// colours returns the first SGR sequence that sets a foreground or
// background colour (30–37, 38, 40–47, 48, 90–97, 100–107; 39 and 49 only
// reset to the default), or "".
func colours(screen string) string {
	for _, m := range regexp.MustCompile(`\x1b\[([0-9;]*)m`).FindAllStringSubmatch(screen, -1) {
		for _, p := range strings.Split(m[1], ";") {
			n, err := strconv.Atoi(p)
			if err == nil && (n >= 30 && n <= 38 || n >= 40 && n <= 48 || n >= 90 && n <= 97 || n >= 100 && n <= 107) {
				return fmt.Sprintf("%q", m[0])
			}
		}
	}
	return ""
}

func TestWatchWithoutATerminal(t *testing.T) {
	dir := pipelineRepo(t, "", "lower lib/lower.sh")
	_, errOut, err := sh(t, dir, nil, "git", "agentproto", "watch", "demo")
	if code := exitCode(err); code == 0 || !strings.Contains(errOut, "watch needs a terminal; use --once") {
		t.Fatalf("watch without a terminal: exit %d, %q", code, errOut)
	}
	out := must(t, dir, "git", "agentproto", "watch", "demo", "--once")
	for _, want := range []string{"plan demo", "WP0", "WP1", "WP2", "SESSIONS"} {
		if !strings.Contains(out, want) {
			t.Errorf("--once lacks %q:\n%s", want, out)
		}
	}
	var doc struct {
		Schema string `json:"schema"`
		WPs    []struct{ ID, State string }
	}
	if err := json.Unmarshal([]byte(must(t, dir, "git", "agentproto", "watch", "demo", "--json")), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Schema != "agentproto.watch/v1" || len(doc.WPs) != 3 || doc.WPs[0].State != "planned" {
		t.Fatalf("snapshot %+v", doc)
	}
	_, errOut, err = sh(t, dir, nil, "git", "agentproto", "watch", "nosuch", "--once")
	if exitCode(err) == 0 || !strings.Contains(errOut, "nosuch") {
		t.Fatalf("unknown plan: %v %q", err, errOut)
	}
}
