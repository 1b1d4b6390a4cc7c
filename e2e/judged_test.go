package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hostileTest is a WP's test, run by the gate, that does what agent-written
// tests were seen to do: read the user's token from any process it can
// see and from gh's hosts.yml, print it reversed (past the scrubber),
// plant a git hook, a branch and a ledger ref in the main repository, and
// leave a detached process behind. Then it passes.
const hostileTest = `for e in /proc/[0-9]*/environ; do tr '\0' '\n' < $e 2>/dev/null | grep '^GH_TOKEN=' | rev; done
rev "$HOME/.config/gh/hosts.yml" 2>/dev/null
c=$(git rev-parse --path-format=absolute --git-common-dir)
printf '#!/bin/sh\necho pwned\n' > "$c/hooks/post-commit" 2>/dev/null && chmod +x "$c/hooks/post-commit"
git branch planted-by-test 2>/dev/null
git update-ref refs/agentproto/ledger/w-planted HEAD 2>/dev/null
(setsid sh -c 'exec sleep 3017' >/dev/null 2>&1 &)
echo stealer-ran
[ "$(echo AB | sh lib/lower.sh)" = ab ]
`

func writeStep(path, content string) string {
	b, _ := json.Marshal(map[string]string{"op": "write", "path": path, "content": content})
	return string(b)
}

func pgrep(pattern string) string {
	out, _ := exec.Command("pgrep", "-f", pattern).Output()
	return strings.TrimSpace(string(out))
}

func killAll(pattern string) { exec.Command("pkill", "-9", "-f", pattern).Run() }

// The same attempts written in Python and in Go, run from the WP's shell
// test (the only test file its perimeter owns).
const hostilePython = `python3 - <<'PY'
import glob, os, subprocess
for e in glob.glob("/proc/[0-9]*/environ"):
    try:
        for kv in open(e, "rb").read().split(b"\0"):
            if kv.startswith(b"GH_TOKEN="): print(kv.decode()[::-1])
    except OSError: pass
try: print(open(os.path.expanduser("~/.config/gh/hosts.yml")).read()[::-1])
except OSError: pass
common = subprocess.run(["git", "rev-parse", "--path-format=absolute", "--git-common-dir"], capture_output=True, text=True).stdout.strip()
try: open(common + "/hooks/post-commit", "w").write("#!/bin/sh\necho pwned\n")
except OSError: pass
subprocess.run(["git", "branch", "planted-by-test"], capture_output=True)
subprocess.run(["git", "update-ref", "refs/agentproto/ledger/w-planted", "HEAD"], capture_output=True)
subprocess.Popen(["sleep", "3017"], start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print("stealer-ran")
PY
[ "$(echo AB | sh lib/lower.sh)" = ab ]
`

const hostileGo = `cat > "$TMPDIR/steal.go" <<'GO'
package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

func rev(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

func main() {
	envs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, e := range envs {
		b, _ := os.ReadFile(e)
		for _, kv := range strings.Split(string(b), "\x00") {
			if strings.HasPrefix(kv, "GH_TOKEN=") {
				fmt.Println(rev(kv))
			}
		}
	}
	home, _ := os.UserHomeDir()
	if b, err := os.ReadFile(filepath.Join(home, ".config/gh/hosts.yml")); err == nil {
		fmt.Println(rev(string(b)))
	}
	out, _ := exec.Command("git", "rev-parse", "--path-format=absolute", "--git-common-dir").Output()
	os.WriteFile(strings.TrimSpace(string(out))+"/hooks/post-commit", []byte("#!/bin/sh\necho pwned\n"), 0o755)
	exec.Command("git", "branch", "planted-by-test").Run()
	exec.Command("git", "update-ref", "refs/agentproto/ledger/w-planted", "HEAD").Run()
	c := exec.Command("sleep", "3017")
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	c.Start()
	fmt.Println("stealer-ran")
}
GO
go run "$TMPDIR/steal.go"
[ "$(echo AB | sh lib/lower.sh)" = ab ]
`

// A test the gate runs — in shell, Python or Go — reads no token (none in
// its environment, no process outside its sandbox, not hosts.yml), so
// none reaches a git object, even reversed; it plants nothing in the
// repository; and the process it detached does not outlive the gate.
func TestGateRunsAgentTestsInTheSandbox(t *testing.T) {
	for _, c := range []struct{ lang, test string }{{"shell", hostileTest}, {"python", hostilePython}, {"go", hostileGo}} {
		t.Run(c.lang, func(t *testing.T) {
			defer killAll("sleep 3017")
			dir := pipelineRepo(t, writeStep("tests/lower_test.sh", c.test), "lower lib/lower.sh")
			home := homeOf(t)
			os.MkdirAll(filepath.Join(home, ".config", "gh"), 0o700)
			os.WriteFile(filepath.Join(home, ".config", "gh", "hosts.yml"), []byte("github.com:\n  oauth_token: "+hostileToken+"\n"), 0o600)
			token := []string{"GH_TOKEN=" + hostileToken}
			must(t, dir, "git", "agentproto", "dispatch", "demo", "--wp", "WP0")
			out, errOut, err := shEnv(t, dir, token, "git", "agentproto", "dispatch", "demo", "--wp", "WP2")
			if err != nil || !strings.Contains(out, "WP2   verify     pass") {
				t.Fatalf("dispatch: %v\n%s\n%s", err, out, errOut)
			}
			if _, _, err := shEnv(t, dir, token, "git", "agentproto", "verify", "demo", "WP2"); err != nil {
				t.Fatalf("verify: %v", err)
			}
			objects := everyObject(t, dir)
			if !strings.Contains(objects, "stealer-ran") {
				t.Fatal("the hostile test did not run to its end (no stealer-ran in the gate log)")
			}
			if strings.Contains(objects, hostileToken) || strings.Contains(objects, reverse(hostileToken)) || strings.Contains(objects, hostileToken[4:]) {
				t.Fatal("the token reached a git object")
			}
			if _, err := os.Stat(filepath.Join(dir, ".git", "hooks", "post-commit")); err == nil {
				t.Error("the test planted a hook")
			}
			if refs := must(t, dir, "git", "for-each-ref", "refs/heads/planted-by-test", "refs/agentproto/ledger/w-planted"); refs != "" {
				t.Errorf("the test planted refs: %s", refs)
			}
			if left := pgrep("sleep 3017"); left != "" {
				t.Errorf("a process the test detached outlived the gate: %s", left)
			}
		})
	}
}

// The same test with the sandbox off: the hook is planted, and verify,
// which now looks outside the worktree after the gate too, fails on it.
func TestGateWritesOutsideAreFoundWithoutTheSandbox(t *testing.T) {
	defer killAll("sleep 3017")
	dir := pipelineRepoConfig(t, sandboxOff, writeStep("tests/lower_test.sh", hostileTest), "lower lib/lower.sh")
	must(t, dir, "git", "agentproto", "dispatch", "demo", "--wp", "WP0")
	out, _, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo", "--wp", "WP2")
	if exitCode(err) != 1 || !strings.Contains(out, "outside-worktree: "+filepath.Join(dir, ".git", "hooks", "post-commit")) {
		t.Fatalf("dispatch: %v\n%s", err, out)
	}
}

// A gate whose test runs past gate_timeout — a child in the foreground,
// one in the background holding the output, one detached — is ended,
// all of it, within the bound and a short grace; the run is recorded as
// timed out and fails.
func TestGateTimeoutEndsTheWholeTree(t *testing.T) {
	defer killAll("sleep 301[89]")
	defer killAll("sleep 3020")
	slow := `(sleep 3019 &)
(setsid sh -c 'exec sleep 3020' >/dev/null 2>&1 &)
sleep 3018
`
	dir := pipelineRepo(t, writeStep("tests/lower_test.sh", slow), "lower lib/lower.sh")
	cfg := filepath.Join(dir, "agentproto.toml")
	b, _ := os.ReadFile(cfg)
	os.WriteFile(cfg, []byte(strings.Replace(string(b), "[dispatch]\n", "[dispatch]\ngate_timeout = \"3s\"\n", 1)), 0o644)
	must(t, dir, "git", "agentproto", "dispatch", "demo", "--wp", "WP0")
	start := time.Now()
	out, _, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo", "--wp", "WP2")
	took := time.Since(start)
	if exitCode(err) != 1 || !strings.Contains(out, "gate-timeout: the gate did not end within gate_timeout (3s)") || !strings.Contains(out, "gate exit 124") {
		t.Fatalf("dispatch: %v\n%s", err, out)
	}
	// The bound is 3 s; the session's own turn and the other steps take
	// a few seconds more; a gate that waited for its children would take
	// the 50 minutes they sleep.
	if took > 30*time.Second {
		t.Errorf("dispatch took %s", took)
	}
	for _, p := range []string{"sleep 3018", "sleep 3019", "sleep 3020"} {
		if left := pgrep(p); left != "" {
			t.Errorf("%s outlived the gate: %s", p, left)
		}
	}
	v := ledgerEvents(t, dir, "wp_verified")
	last := v[len(v)-1]
	gate, _ := last["gate"].(map[string]any)
	if last["verdict"] != "fail" || gate["timed_out"] != true || gate["exit_code"] != float64(124) {
		t.Fatalf("recorded: %v", last)
	}
}

func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

// A test that, while the gate runs, rewrites the copy review reads (here
// it makes itself look like it asserts) is caught: review reports the
// copy tampered with, an error, and its judges read a fresh copy.
func TestReviewFindsACopyRewrittenByItsTests(t *testing.T) {
	dir := newRepo(t)
	write := func(rel, text string) {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(text), 0o644)
	}
	write("test.sh", "#!/bin/sh\nfor t in tests/*_test.sh; do sh \"$t\" || exit 1; done\n")
	write("lib/lower.sh", "tr A-Z a-z\n")
	write("tests/lower_test.sh", "[ \"$(echo AB | sh lib/lower.sh)\" = ab ]\n")
	must(t, dir, "git", "add", "-A")
	must(t, dir, "git", "commit", "-qm", "base")
	base := strings.TrimSpace(must(t, dir, "git", "rev-parse", "HEAD"))
	review := func() string {
		out, _, _ := sh(t, dir, nil, "git", "agentproto", "review", "--base", base, "--head", "HEAD", "--gate", "sh test.sh", "--mutation-budget", "0s", "--json")
		return out
	}
	write("lib/upper.sh", "tr a-z A-Z\n")
	write("tests/upper_test.sh", "true\n")
	must(t, dir, "git", "add", "-A")
	must(t, dir, "git", "commit", "-qm", "honest twin")
	if out := review(); strings.Contains(out, `"tampered"`) {
		t.Fatalf("an honest change was called tampered: %s", out)
	}
	write("tests/upper_test.sh", "printf '%s\\n' '[ \"$(echo ab | sh lib/upper.sh)\" = AB ]' > \"$0\"\n")
	must(t, dir, "git", "add", "-A")
	must(t, dir, "git", "commit", "-qm", "a test that rewrites itself")
	out := review()
	if !strings.Contains(out, `"code":"tampered"`) || !strings.Contains(out, "tests/upper_test.sh") || !strings.Contains(out, `"ok":false`) {
		t.Fatalf("the rewritten copy was not found: %s", out)
	}
}

// A setup hook is trusted, but the script it runs from the worktree may be
// an agent's doing: it runs in the sandbox, writing its worktree only and
// reading no token.
func TestSetupHookRunsInTheSandbox(t *testing.T) {
	dir := newRepo(t)
	home := homeOf(t)
	os.MkdirAll(filepath.Join(home, ".config", "gh"), 0o700)
	os.WriteFile(filepath.Join(home, ".config", "gh", "hosts.yml"), []byte("github.com:\n  oauth_token: "+hostileToken+"\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte("[worktree]\nsetup = [\"sh setup.sh\"]\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "setup.sh"), []byte(`echo ok > provisioned
echo x > "`+dir+`/planted.txt" 2>/dev/null && echo PLANTED
rev "$HOME/.config/gh/hosts.yml" 2>/dev/null || echo refused hosts.yml
(setsid sh -c 'exec sleep 3021' >/dev/null 2>&1 &)
true
`), 0o644)
	must(t, dir, "git", "add", "-A")
	must(t, dir, "git", "commit", "-qm", "hooks")
	must(t, dir, "git", "agentproto", "init")
	must(t, dir, "git", "agentproto", "trust")
	defer killAll("sleep 3021")
	_, errOut, err := sh(t, dir, nil, "git", "agentproto", "worktree", "new", "one")
	if err != nil || !strings.Contains(errOut, "refused hosts.yml") || strings.Contains(errOut, "PLANTED") {
		t.Fatalf("worktree new: %v\n%s", err, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "planted.txt")); err == nil {
		t.Error("the hook wrote the main checkout")
	}
	if _, err := os.Stat(filepath.Join(home, ".agentproto", "worktrees", "repo", "one", "provisioned")); err != nil {
		t.Errorf("the hook could not write its worktree: %v", err)
	}
	if strings.Contains(everyObject(t, dir), reverse(hostileToken)) {
		t.Error("the token reached a git object")
	}
	if left := pgrep("sleep 3021"); left != "" {
		t.Errorf("a process the hook detached outlived it: %s", left)
	}
}

// A work package rewrites the script a trusted setup hook runs; the next
// work package's worktree, provisioned from its checkpoint, runs the base's
// script (the hooks were trusted with it), never the rewrite, and holds
// the checkpoint's script when its agent starts.
func TestHooksRunTheBaseScriptNotOneRewrittenByAWorkPackage(t *testing.T) {
	tmp := t.TempDir()
	marker, baseMarker := filepath.Join(tmp, "rewrite-ran"), filepath.Join(tmp, "base-ran")
	seen := filepath.Join(tmp, "wp1-saw")
	rewrite := "touch '" + marker + "'; echo set up > .setup-ran\n"
	dir := scriptedPlan(t, map[string]string{
		"scripts/setup.sh": "touch '" + baseMarker + "'; echo set up > .setup-ran\n",
		".gitignore":       ".setup-ran\n",
		"agentproto.toml":  "[dispatch]\nadapter = \"scripted\"\n[worktree]\nsetup = [\"sh scripts/setup.sh\"]\n",
	}, "[[wp]]\nid = \"WP0\"\ntitle = \"scripts\"\nowns = [\"scripts/**\"]\n[[wp]]\nid = \"WP1\"\ntitle = \"lib\"\nowns = [\"lib/**\"]\ndepends_on = [\"WP0\"]\n",
		map[string]string{
			"WP0": writeStep("scripts/setup.sh", rewrite) + "\n" +
				`{"op":"report","report":{"wp":"WP0","files":["scripts/setup.sh"],"design_choices":[],"wiring":[],"exit_codes":[]}}`,
			// WP1's agent records the script its worktree holds as it starts.
			"WP1": `{"op":"run","cmd":"cp scripts/setup.sh '` + seen + `'"}` + "\n" + writeStep("lib/one.sh", "echo one\n") + "\n" +
				`{"op":"report","report":{"wp":"WP1","files":["lib/one.sh"],"design_choices":[],"wiring":[],"exit_codes":[]}}`,
		})
	unconfined(t, dir) // the rewrite would be held by the sandbox; here what runs is checked
	must(t, dir, "git", "agentproto", "dispatch", "demo", "--wp", "WP0")
	os.Remove(marker)
	os.Remove(baseMarker)
	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo", "--wp", "WP1")
	if err != nil || !strings.Contains(out+errOut, "scripts/setup.sh: the hooks run its version trusted at") {
		t.Fatalf("dispatch of WP1: %v\n%s\n%s", err, out, errOut)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the rewritten setup script ran")
	}
	if _, err := os.Stat(baseMarker); err != nil {
		t.Errorf("the base's setup script did not run: %v", err)
	}
	if b, err := os.ReadFile(seen); err != nil || string(b) != rewrite {
		t.Errorf("WP1's agent saw scripts/setup.sh as %q (%v), want the checkpoint's", b, err)
	}
	evs := strings.Split(strings.TrimSpace(must(t, dir, "git", "agentproto", "ledger", "log", "--kind", "worktree_provisioned", "--json")), "\n")
	if len(evs) != 2 || !strings.Contains(evs[1], `"ok":true`) || !strings.Contains(evs[1], "setup.log") || !strings.Contains(strings.Join(evs, "\n"), `"from_base":["scripts/setup.sh"]`) {
		t.Errorf("the setup runs are not recorded as before: %q", evs)
	}
}

// A gate may name its tool by absolute path outside the repository (a
// shared checker, a runner installed elsewhere): the sandbox lets it read
// what it names, and nothing beside it.
func TestGateReadsTheToolItNames(t *testing.T) {
	tools := t.TempDir()
	os.WriteFile(filepath.Join(tools, "check.sh"), []byte("echo checker-ran; test -f calc.sh\n"), 0o755)
	dir := newRepo(t)
	os.WriteFile(filepath.Join(dir, "calc.sh"), []byte("echo 1\n"), 0o644)
	must(t, dir, "git", "add", "-A")
	must(t, dir, "git", "commit", "-qm", "base")
	base := strings.TrimSpace(must(t, dir, "git", "rev-parse", "HEAD"))
	os.WriteFile(filepath.Join(dir, "calc.sh"), []byte("echo 2\n"), 0o644)
	must(t, dir, "git", "commit", "-qam", "head")
	out, _, _ := sh(t, dir, nil, "git", "agentproto", "review", "--base", base, "--head", "HEAD", "--gate", "sh "+filepath.Join(tools, "check.sh"), "--mutation-budget", "0s", "--json")
	if strings.Contains(out, `"code":"gate-failed"`) || !strings.Contains(out, `"exit_code":0`) {
		t.Fatalf("a gate naming its checker by absolute path: %s", out)
	}
}

// A wave whose first work package fails verification still verifies the
// rest: two faulty work packages are both found, and both named, in one
// dispatch.
func TestAWaveWithTwoFailingWorkPackagesReportsBoth(t *testing.T) {
	scripts := map[string]string{}
	for wp, own := range map[string]string{"WP0": "a", "WP1": "b", "WP2": "c"} {
		steps := writeStep(own+"/x.txt", "x\n")
		if wp != "WP0" {
			steps += "\n" + writeStep("stray-"+own+".txt", "not mine\n") // outside its perimeter
		}
		scripts[wp] = steps + "\n" + `{"op":"report","report":{"wp":"` + wp + `","files":["` + own + `/x.txt"],"design_choices":[],"wiring":[],"exit_codes":[]}}`
	}
	// Widened to the worktree: the stray write must happen for verify to find it.
	dir := scriptedPlan(t, map[string]string{"agentproto.toml": "[dispatch]\nadapter = \"scripted\"\n" + sandboxWorktree},
		"[[wp]]\nid = \"WP0\"\ntitle = \"a\"\nowns = [\"a/**\"]\n"+
			"[[wp]]\nid = \"WP1\"\ntitle = \"b\"\nowns = [\"b/**\"]\ndepends_on = [\"WP0\"]\n"+
			"[[wp]]\nid = \"WP2\"\ntitle = \"c\"\nowns = [\"c/**\"]\ndepends_on = [\"WP0\"]\n", scripts)
	must(t, dir, "git", "agentproto", "dispatch", "demo", "--wp", "WP0")
	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo")
	if exitCode(err) != 1 || !strings.Contains(out, "WP1   verify     fail") || !strings.Contains(out, "WP2   verify     fail") ||
		!strings.Contains(errOut, "2 work packages failed verification: WP1 (git agentproto sessions prompt s-") || !strings.Contains(errOut, "WP2 (git agentproto sessions prompt s-") {
		t.Fatalf("dispatch: exit %d\n%s\n%s", exitCode(err), out, errOut)
	}
}

// scriptedPlan makes a repository holding files (with a passing test.sh
// and AGENTS.md), trusts its hooks, and freezes plan demo: its [[wp]]
// entries and the script each WP's scripted agent runs.
func scriptedPlan(t *testing.T, files map[string]string, wps string, scripts map[string]string) string {
	t.Helper()
	dir := newRepo(t)
	write := func(rel, text string) {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(text), 0o644)
	}
	write("test.sh", "true\n")
	write("AGENTS.md", "# Definition of done\n")
	for rel, text := range files {
		write(rel, text)
	}
	must(t, dir, "git", "add", "-A")
	must(t, dir, "git", "commit", "-qm", "project")
	must(t, dir, "git", "agentproto", "init")
	if strings.Contains(files["agentproto.toml"], "[worktree]") {
		must(t, dir, "git", "agentproto", "trust")
	}
	must(t, dir, "git", "agentproto", "plan", "init", "demo", "--gate", "sh test.sh")
	for wp := range scripts {
		if wp != "WP0" {
			must(t, dir, "git", "agentproto", "plan", "new-wp", "demo", wp)
		}
	}
	write(".plans/demo/plan.toml", "name = \"demo\"\nbase = \"main\"\ngate = \"sh test.sh\"\n"+wps)
	for wp, script := range scripts {
		p := filepath.Join(dir, ".plans/demo", wp+"-brief.md")
		b, _ := os.ReadFile(p)
		text := strings.Replace(string(b), "- (fork): default (choice).", "- input: default stdin.", 1)
		os.WriteFile(p, []byte(text+"\n## Script\n```agentproto-script\n"+script+"\n```\n"), 0o644)
	}
	must(t, dir, "git", "agentproto", "plan", "freeze", "demo")
	return dir
}
