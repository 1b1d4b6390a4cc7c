package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hostileToken is the token the user's own commands hold: the agent must
// never see it.
const hostileToken = "ghp_hostileSandboxToken0123456789abcd"

// hostileAgent is a shell agent that tries, as the user's own uid, every
// way out of its session that an agent was seen to take: each line of
// attempts.log in its worktree says what happened.
const hostileAgent = `#!/bin/sh
log=attempts.log
say() { echo "$*" >> $log; }
main=$1; victim=$2; victimpid=$3; sibling=$4; ap=${5:-git-agentproto}; OWNTMP=$TMPDIR
# Tokens from any process's environment: the daemon, the command waiting on us.
for e in /proc/[0-9]*/environ; do
  if tr '\0' '\n' < $e 2>/dev/null | grep -q '^GH_TOKEN='; then say "TOKEN-READ $e $(tr "\\0" " " < $(dirname $e)/cmdline)"; fi
done
cat "$HOME/.config/gh/hosts.yml" >/dev/null 2>&1 && say "HOSTS-READ" || say "refused hosts.yml"
# The ledger's seal key: with it, a forged wp_verified would pass as ours.
cat "${XDG_STATE_HOME:-$HOME/.local/state}"/agentproto/seals/*.json >/dev/null 2>&1 && say "SEAL-KEY-READ" || say "refused seal key"
# Its TMPDIR lies in the daemon's runtime directory, beside the control token.
ls "$(dirname "$TMPDIR")" >/dev/null 2>&1 && say "RUNTIME-LISTED" || say "refused runtime dir"
cat "$(dirname "$TMPDIR")"/*.token >/dev/null 2>&1 && say "TOKEN-FILE-READ" || say "refused token file"
# Control of other sessions through the daemon and the MCP server, its
# socket found as the user's own commands find it.
case "$TMPDIR" in */agentproto-*/*) TMPDIR=$(dirname "$(dirname "$TMPDIR")"); export TMPDIR ;; esac
"$ap" sessions start --adapter scripted --dir . --no-ping --prompt spawned > start.out 2>&1 && say "STARTED" || say "refused start: $(tail -1 start.out)"
"$ap" sessions kill "$victim" > kill.out 2>&1 && say "KILLED" || say "refused kill: $(tail -1 kill.out)"
"$ap" sessions prompt "$victim" --text hijacked > prompt.out 2>&1 && say "PROMPTED" || say "refused prompt"
(printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}' \
  '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"session_kill","arguments":{"id":"'"$victim"'"}}}'; sleep 3) | timeout 20 "$ap" mcp > mcp.out 2>&1
grep -q 'no valid control token' mcp.out && say "refused mcp kill" || say "MCP-ANSWERED $(cat mcp.out)"
kill -9 "$victimpid" 2>/dev/null && say "SIGNALLED" || say "refused signal"
kill -9 -- "-$victimpid" 2>/dev/null && say "GROUP-SIGNALLED" || say "refused group signal"
# Writes outside the worktree.
echo x > "$main/planted.txt" 2>/dev/null && say "WROTE-MAIN" || say "refused main"
echo 'echo pwned' > "$main/.git/hooks/post-commit" 2>/dev/null && say "WROTE-HOOK" || say "refused hook"
echo '[alias] x = !true' >> "$main/.git/config" 2>/dev/null && say "WROTE-CONFIG" || say "refused config"
git update-ref refs/agentproto/ledger/w-forged HEAD 2>/dev/null && say "WROTE-LEDGER-REF" || say "refused ledger ref"
git update-ref refs/heads/main HEAD 2>/dev/null && say "MOVED-MAIN" || say "refused main ref"
"$ap" ledger append --kind note --id forged --data '{"text":"accepted"}' >/dev/null 2>&1 && say "APPENDED" || say "refused append"
echo x > "$sibling/planted.txt" 2>/dev/null && say "WROTE-SIBLING" || say "refused sibling"
echo x > /tmp/hostile-planted-$$ 2>/dev/null && say "WROTE-TMP" || say "refused /tmp"
echo x > "$OWNTMP/own-tmp" && say "own tmp ok"
# A detached orphan meant to outlive the session.
(setsid sh -c 'echo $$ > orphan.pid; exec sleep 300' >/dev/null 2>&1 &)
# Its own work: a commit in its own worktree is allowed.
echo work > work.txt && git add work.txt && git -c user.name=a -c user.email=a@b commit -qm "agent work" && say "committed own"
say done
`

// hostileRun starts a victim session and the hostile agent beside it,
// each in its own worktree, from commands holding the token, and returns
// what the agent logged.
type hostileRun struct {
	dir, victim, hostile, attempts string
	victimRec                      sessionRec
	hostileDir                     string
	// holder is the pid of a user's command that held the token all the
	// while the agent ran (git, running git agentproto sessions wait).
	holder int
}

func runHostile(t *testing.T, config string) hostileRun {
	t.Helper()
	dir := newRepo(t)
	must(t, dir, "git", "agentproto", "init")
	os.WriteFile(filepath.Join(dir, "hostile.sh"), []byte(hostileAgent), 0o755)
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte(config), 0o644)
	must(t, dir, "git", "add", "hostile.sh", "agentproto.toml")
	must(t, dir, "git", "commit", "-qm", "agent")
	home := homeOf(t)
	os.MkdirAll(filepath.Join(home, ".config", "gh"), 0o700)
	os.WriteFile(filepath.Join(home, ".config", "gh", "hosts.yml"), []byte("github.com:\n  oauth_token: "+hostileToken+"\n"), 0o600)
	tokenEnv := []string{"GH_TOKEN=" + hostileToken}
	r := hostileRun{dir: dir}
	var errOut string
	var err error
	r.victim, errOut, err = startSessionWith(t, dir, tokenEnv, "--adapter", "scripted", "--no-ping", "--worktree", "victim",
		"--prompt", script(`{"op":"sleep","ms":120000}`))
	if err != nil {
		t.Fatalf("victim: %v %s", err, errOut)
	}
	r.victimRec = sessionJSON(t, dir, r.victim)
	// A user's command holding the token lives all the while the agent
	// runs: its git process, like any the user starts, is dumpable and
	// carries the caller's environment, so the token read has a target.
	holder := exec.Command("git", "agentproto", "sessions", "wait", r.victim, "--timeout", "120s")
	holder.Dir, holder.Env = dir, append(gitEnv(homeOf(t)), tokenEnv...)
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { holder.Process.Kill(); holder.Wait() })
	r.holder = holder.Process.Pid
	waitFor(t, "the token holder to start", func() bool {
		env, err := os.ReadFile("/proc/" + strconv.Itoa(r.holder) + "/environ")
		return err == nil && bytes.Contains(env, []byte(hostileToken))
	})
	r.hostileDir = filepath.Join(filepath.Dir(r.victimRec.Dir), "hostile")
	cmd := "sh hostile.sh " + strings.Join([]string{dir, r.victim, strconv.Itoa(r.victimRec.Pid), r.victimRec.Dir, filepath.Join(binDir, "git-agentproto")}, " ")
	r.hostile, errOut, err = startSessionWith(t, dir, tokenEnv, "--adapter", "exec", "--no-ping", "--worktree", "hostile",
		"--option", "command="+cmd, "--prompt", "go")
	if err != nil {
		t.Fatalf("hostile: %v %s", err, errOut)
	}
	// A command holding the token waits on the agent meanwhile.
	if out, errOut, err := shEnv(t, dir, tokenEnv, "git", "agentproto", "sessions", "wait", r.hostile, "--timeout", "120s"); err != nil {
		t.Fatalf("wait: %v %s %s", err, out, errOut)
	}
	b, _ := os.ReadFile(filepath.Join(r.hostileDir, "attempts.log"))
	r.attempts = string(b)
	t.Logf("attempts:\n%s", b)
	if !strings.Contains(r.attempts, "done") {
		t.Fatalf("the agent did not finish its attempts:\n%s", b)
	}
	return r
}

// The attempts are real: with the sandbox off, the same agent, as the same
// uid, gets through (this is what the sandbox is for).
func TestHostileAgentGetsThroughWithoutTheSandbox(t *testing.T) {
	r := runHostile(t, "[sandbox]\nmode = \"off\"\n")
	for _, want := range []string{"WROTE-MAIN", "WROTE-HOOK", "WROTE-SIBLING", "WROTE-TMP", "KILLED", "HOSTS-READ", "SEAL-KEY-READ",
		"TOKEN-READ /proc/" + strconv.Itoa(r.holder) + "/environ"} {
		if !strings.Contains(r.attempts, want) {
			t.Errorf("unconfined, the agent did not manage %s: the attempt does not test what it claims", want)
		}
	}
	if matches, _ := filepath.Glob("/tmp/hostile-planted-*"); len(matches) > 0 {
		for _, m := range matches {
			os.Remove(m)
		}
	}
	if rec := sessionJSON(t, r.dir, r.hostile); rec.Sandbox != "none" {
		t.Errorf("record says sandbox %q", rec.Sandbox)
	}
	sh(t, r.dir, nil, "git", "agentproto", "sessions", "gc", "--apply")
	if b, _ := os.ReadFile(filepath.Join(r.hostileDir, "orphan.pid")); len(b) > 0 {
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		syscall9(pid)
	}
}

// An exec agent that tries every way out of its session it was seen to
// take fails at the system call, as the user's own uid: the victim
// session lives on, nothing outside its worktree changes, the token is
// never seen, and its detached orphan dies with its session.
func TestHostileAgentIsConfinedByTheSandbox(t *testing.T) {
	r := runHostile(t, "")
	dir, attempts := r.dir, r.attempts
	// The token was there to read all the while (the control test reads
	// it from this holder): reading none is the sandbox's doing.
	if !pidAlive(r.holder) {
		t.Errorf("the token holder %d ended before the agent did", r.holder)
	}
	for _, bad := range []string{"TOKEN-READ", "HOSTS-READ", "SEAL-KEY-READ", "RUNTIME-LISTED", "TOKEN-FILE-READ", "STARTED", "KILLED", "PROMPTED", "MCP-ANSWERED", "SIGNALLED", "WROTE-", "MOVED-MAIN", "APPENDED"} {
		if strings.Contains(attempts, bad) {
			t.Errorf("the agent got through: %s", bad)
		}
	}
	for _, want := range []string{"refused start: agentproto: the sessions daemon refused", "refused kill", "refused mcp kill", "own tmp ok", "committed own"} {
		if !strings.Contains(attempts, want) {
			t.Errorf("attempts.log lacks %q", want)
		}
	}
	// The victims, seen from outside.
	if rec := sessionJSON(t, dir, r.victim); rec.State != "running" || !pidAlive(rec.Pid) {
		t.Errorf("the victim session is %s (pid %d alive: %v)", rec.State, rec.Pid, pidAlive(rec.Pid))
	}
	for _, p := range []string{filepath.Join(dir, "planted.txt"), filepath.Join(dir, ".git", "hooks", "post-commit"), filepath.Join(r.victimRec.Dir, "planted.txt")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was planted", p)
		}
	}
	if cfg, _ := os.ReadFile(filepath.Join(dir, ".git", "config")); strings.Contains(string(cfg), "alias") {
		t.Errorf("the repository's config was changed:\n%s", cfg)
	}
	if out, _, _ := sh(t, dir, nil, "git", "for-each-ref", "refs/agentproto/ledger/w-forged"); out != "" {
		t.Errorf("a ledger ref was forged: %s", out)
	}
	if out, _, _ := sh(t, dir, nil, "git", "agentproto", "ledger", "show", "forged"); strings.Contains(out, "accepted") {
		t.Errorf("the agent appended to the ledger: %s", out)
	}
	if matches, _ := filepath.Glob("/tmp/hostile-planted-*"); len(matches) > 0 {
		t.Errorf("the agent wrote /tmp: %v", matches)
		for _, m := range matches {
			os.Remove(m)
		}
	}
	if ls := must(t, dir, "git", "agentproto", "sessions", "ls", "--all"); strings.Count(ls, "s-") != 2 {
		t.Errorf("want the victim and the agent only:\n%s", ls)
	}
	if log := must(t, dir, "git", "log", "--format=%s", "wt/hostile"); !strings.Contains(log, "agent work") {
		t.Errorf("the agent's own commit is not on its branch: %s", log)
	}
	if rec := sessionJSON(t, dir, r.hostile); rec.Sandbox != "landlock" {
		t.Errorf("the session record says sandbox %q", rec.Sandbox)
	}
	// The daemon was started by a command holding the token: it does not.
	// Only root reads it; to the same unprivileged uid the daemon is
	// closed (not dumpable), which is what protects it. What must hold
	// either way is that the agent read no environment at all (above).
	env, err := os.ReadFile("/proc/" + strconv.Itoa(daemonPid(t, dir)) + "/environ")
	switch {
	case errors.Is(err, os.ErrPermission) && os.Geteuid() != 0:
		t.Logf("the daemon's environment is closed to this uid too: %v", err)
	case err != nil:
		t.Errorf("reading the daemon's environment: %v", err)
	case bytes.Contains(env, []byte(hostileToken)):
		t.Errorf("the daemon's environment holds the token")
	}
	// Its orphan ends with it.
	b, _ := os.ReadFile(filepath.Join(r.hostileDir, "orphan.pid"))
	orphan, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if orphan <= 0 || !pidAlive(orphan) {
		t.Fatalf("the orphan did not start (pid %q)", b)
	}
	must(t, dir, "git", "agentproto", "sessions", "kill", r.hostile)
	for deadline := time.Now().Add(5 * time.Second); pidAlive(orphan) && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if pidAlive(orphan) {
		syscall9(orphan)
		t.Fatalf("the detached orphan %d outlived its session", orphan)
	}
	must(t, dir, "git", "agentproto", "sessions", "kill", r.victim)
}

type sessionRec struct {
	ID, Dir, State, Sandbox string
	SandboxNote             string `json:"sandbox_note"`
	Pid                     int
	Warnings                []string
}

func sessionJSON(t *testing.T, dir, id string) sessionRec {
	t.Helper()
	var recs []sessionRec
	out := must(t, dir, "git", "agentproto", "sessions", "ls", "--all", "--json")
	if err := json.Unmarshal([]byte(out), &recs); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, r := range recs {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("no session %s in %s", id, out)
	return sessionRec{}
}

func startSessionWith(t *testing.T, dir string, env []string, args ...string) (string, string, error) {
	t.Helper()
	out, errOut, err := shEnv(t, dir, env, "git", append([]string{"agentproto", "sessions", "start"}, args...)...)
	return strings.TrimSpace(out), errOut, err
}

func pidAlive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i > 0 && len(b) > i+2 && b[i+2] != 'Z'
}

func syscall9(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}

// Without Landlock (forced off here), auto runs unconfined with one
// warning and records sandbox none; required refuses, exit 5, naming
// what is missing, and starts nothing.
func TestSandboxFallbackWithoutLandlock(t *testing.T) {
	noLandlock := []string{"AGENTPROTO_SANDBOX_ABI=0"}
	dir := newRepo(t)
	must(t, dir, "git", "agentproto", "init")
	out, errOut, err := shEnv(t, dir, noLandlock, "git", "agentproto", "sessions", "start", "--adapter", "scripted", "--no-ping", "--dir", dir, "--prompt", "hi")
	if err != nil {
		t.Fatalf("auto: %v %s", err, errOut)
	}
	if n := strings.Count(errOut, "warning: sandbox: none: this kernel has no Landlock"); n != 1 {
		t.Errorf("auto printed %d sandbox warnings, want 1:\n%s", n, errOut)
	}
	rec := sessionJSON(t, dir, strings.TrimSpace(out))
	if rec.Sandbox != "none" || !strings.Contains(rec.SandboxNote, "no Landlock") {
		t.Errorf("record: sandbox %q (%q)", rec.Sandbox, rec.SandboxNote)
	}
	// Off: no warning, recorded as off.
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte("[sandbox]\nmode = \"off\"\n"), 0o644)
	out, errOut, err = shEnv(t, dir, noLandlock, "git", "agentproto", "sessions", "start", "--adapter", "scripted", "--no-ping", "--dir", dir, "--prompt", "hi")
	if err != nil || strings.Contains(errOut, "warning: sandbox") {
		t.Fatalf("off: %v %s", err, errOut)
	}
	if rec := sessionJSON(t, dir, strings.TrimSpace(out)); rec.Sandbox != "none" || !strings.Contains(rec.SandboxNote, "off") {
		t.Errorf("off record: %+v", rec)
	}
	// Settled first: a turn ending between the two listings is no session
	// left by the refused start.
	must(t, dir, "git", "agentproto", "sessions", "wait", strings.TrimSpace(out), "--timeout", "30s")
	before := must(t, dir, "git", "agentproto", "sessions", "ls", "--all", "--json")
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte("[sandbox]\nmode = \"required\"\n"), 0o644)
	_, errOut, err = shEnv(t, dir, noLandlock, "git", "agentproto", "sessions", "start", "--adapter", "scripted", "--no-ping", "--dir", dir, "--prompt", "hi")
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 5 || !strings.Contains(errOut, `the sandbox is required ([sandbox] mode = "required") but this kernel has no Landlock`) {
		t.Fatalf("required: %v %s", err, errOut)
	}
	if after := must(t, dir, "git", "agentproto", "sessions", "ls", "--all", "--json"); after != before {
		t.Errorf("a refused start left a session:\n%s", after)
	}
}

// With the sandbox on, an agent that edits the main checkout and accepts
// its own edit from a detached, double-forked orphan (out of its session's
// process group, its session variable dropped) fails at both steps: the
// edit is refused, the acceptance cannot be written, and the ledger holds
// no acceptance.
func TestSelfAcceptanceFromADetachedOrphanFails(t *testing.T) {
	accept := runStep(`log=$PWD/lib/accept.log; main="$(git rev-parse --path-format=absolute --git-common-dir)/.."; ` +
		`(echo mine >> "$main/registry.txt") 2>> "$log" || echo "edit refused" >> "$log"; ` +
		`(setsid sh -c 'cd "$0" && env -u AGENTPROTO_SESSION git agentproto verify demo WP2 --accept-outside >> "$1" 2>&1; echo "exit $?" >> "$1"' "$main" "$log" < /dev/null > /dev/null 2>&1 &); ` +
		`sleep 2`)
	dir := pipelineRepo(t, accept, "lower lib/lower.sh")
	sh(t, dir, nil, "git", "agentproto", "dispatch", "demo")
	b, err := os.ReadFile(filepath.Join(homeOf(t), ".agentproto", "worktrees", "repo", "demo-wp2", "lib", "accept.log"))
	t.Logf("accept.log:\n%s", b)
	if err != nil || !strings.Contains(string(b), "edit refused") || !strings.Contains(string(b), "exit ") || strings.Contains(string(b), "exit 0") {
		t.Fatalf("the agent's edit and acceptance: %v\n%s", err, b)
	}
	if acc := ledgerEvents(t, dir, "wp_outside_accepted"); len(acc) != 0 {
		t.Fatalf("the agent accepted: %v", acc)
	}
	if reg, _ := os.ReadFile(filepath.Join(dir, "registry.txt")); strings.Contains(string(reg), "mine") {
		t.Fatalf("the main checkout was edited: %s", reg)
	}
}

// A sandboxed session's tree ends when its daemon is killed with -9 after
// its guard was: the launcher holding the tree gets its parent-death
// signal and kills everything below it, detached children included.
func TestSandboxedTreeEndsWithADaemonKilledWithItsGuard(t *testing.T) {
	_, env := privateTmp(t)
	dir := newRepo(t)
	_, child := spawnedChild(t, dir, env, "scripted")
	log, _ := os.ReadFile(filepath.Join(dir, ".git", "agentproto", "daemon.log"))
	m := regexp.MustCompile(`sessions guard pid (\d+)`).FindSubmatch(log)
	if m == nil {
		t.Fatalf("no guard in:\n%s", log)
	}
	guard, _ := strconv.Atoi(string(m[1]))
	syscall.Kill(guard, syscall.SIGKILL)
	waitFor(t, "the guard to die", func() bool { return gone(guard) })
	syscall.Kill(daemonPid(t, dir), syscall.SIGKILL)
	waitFor(t, "the agent's child to die with its daemon", func() bool { return gone(child) })
}

// unconfined turns the sandbox off in the working tree's agentproto.toml,
// for the tests of what catches an agent where no sandbox holds it.
func unconfined(t *testing.T, dir string) {
	t.Helper()
	p := filepath.Join(dir, "agentproto.toml")
	b, _ := os.ReadFile(p)
	if err := os.WriteFile(p, append(append(b, '\n'), sandboxOff...), 0o644); err != nil {
		t.Fatal(err)
	}
}

// unconfinedCommitted is unconfined, committed: worktrees made after it
// carry it too.
func unconfinedCommitted(t *testing.T, dir string) {
	t.Helper()
	unconfined(t, dir)
	must(t, dir, "git", "add", "agentproto.toml")
	must(t, dir, "git", "commit", "-qm", "sandbox off")
}

// Without the sandbox, a write outside the worktrees during a parallel
// wave is not laid at either work package's door: both ran unconfined,
// so neither is shown to have made it. It is reported unattributed and
// fails the wave, not a work package.
func TestUnconfinedWriteInAParallelWaveIsUnattributed(t *testing.T) {
	plant := runStep(`echo planted > "$(git rev-parse --path-format=absolute --git-common-dir)/../planted.txt"; sleep 1`)
	dir := pipelineRepoConfig(t, sandboxOff, plant, "lower lib/lower.sh")
	must(t, dir, "git", "agentproto", "dispatch", "demo", "--wp", "WP0")
	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo")
	if exitCode(err) != 1 || !strings.Contains(errOut, "the wave failed: 1 change(s) outside the worktrees") {
		t.Fatalf("dispatch: exit %d\n%s\n%s", exitCode(err), out, errOut)
	}
	for _, wp := range []string{"WP1", "WP2"} {
		v := verifyJSON(t, dir, wp)
		if v.Verdict != "pass" || hasFinding(v, "planted.txt") {
			t.Errorf("%s was blamed: %+v", wp, v)
		}
	}
	if !strings.Contains(out, "unattributed: outside-worktree: "+filepath.Join(dir, "planted.txt")) || !strings.Contains(out, "also ran unconfined meanwhile") {
		t.Errorf("the write is not reported unattributed:\n%s", out)
	}
}

// With the sandbox, a change outside the worktree during a session (here
// the user's own, made while the agent works) is never the work
// package's: its session could not have written it.
func TestSandboxedWorkPackageIsNotBlamedForAChangeOutside(t *testing.T) {
	dir := pipelineRepo(t, `{"op":"sleep","ms":1500}`, "lower lib/lower.sh")
	must(t, dir, "git", "agentproto", "dispatch", "demo", "--wp", "WP0")
	done := make(chan string, 1)
	go func() {
		out, errOut, _ := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo", "--wp", "WP2")
		done <- out + errOut
	}()
	waitFor(t, "WP2's session", func() bool {
		return strings.Contains(must(t, dir, "git", "agentproto", "sessions", "ls"), "demo/WP2")
	})
	os.WriteFile(filepath.Join(dir, "mine.txt"), []byte("the user's\n"), 0o644)
	out := <-done
	v := verifyJSON(t, dir, "WP2")
	if v.Verdict != "pass" || hasFinding(v, "mine.txt") || len(v.Unattributed) != 1 || !strings.Contains(v.Unattributed[0], "ran in the sandbox") {
		t.Fatalf("WP2: %+v\n%s", v, out)
	}
}
