package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Token values shaped like no known credential: only knowing the value
// finds them.
const (
	ghTok     = "Xq7pL2mZ8vR4tB6nW1cY5hJ0dEkA3sFg"
	openaiKey = "Pk3Lq8Zr2Vx7Mn4Bt9Wc6Hy1Jd5Gf0Sa"
	modelKey  = "Rt6Yu1Io9Pa4Sd8Fg3Hj7Kl2Zx5Cv0Bn"
)

// withSecrets runs git in dir with the test environment plus extra, and
// returns stdout, stderr and the exit code.
func withSecrets(t *testing.T, dir string, stdin []byte, extra []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(gitEnv(homeOf(t)), extra...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	return out.String(), errOut.String(), exitCode(err)
}

var tokens = []string{"GH_TOKEN=" + ghTok, "OPENAI_API_KEY=" + openaiKey}

// everyObject is the content of every object of the repository, reachable
// or not, loose or packed.
func everyObject(t *testing.T, dir string) string {
	t.Helper()
	return must(t, dir, "git", "cat-file", "--batch-all-objects", "--batch", "--unordered")
}

// requireAbsent fails if any of values is in any object of the repository
// or in the ledger's index.
func requireAbsent(t *testing.T, dir string, values ...string) {
	t.Helper()
	objects := everyObject(t, dir)
	index, _ := os.ReadFile(filepath.Join(dir, ".git", "agentproto", "index.db"))
	for _, v := range values {
		if strings.Contains(objects, v) {
			t.Errorf("a git object holds %q", v)
		}
		if bytes.Contains(index, []byte(v)) {
			t.Errorf("index.db holds %q", v)
		}
	}
}

func TestLedgerAppendRefusesOurSecrets(t *testing.T) {
	dir := newRepo(t)
	must(t, dir, "git", "agentproto", "init")
	b64 := base64.StdEncoding.EncodeToString([]byte("user:" + ghTok + "\n"))
	att := filepath.Join(t.TempDir(), "out.log")
	os.WriteFile(att, []byte("ok\nkey "+openaiKey+"\n"), 0o644)
	cases := []struct {
		name string
		args []string
		in   string
		want string
	}{
		{"verbatim", []string{"--kind", "note", "--id", "n1", "--data", `{"text":"` + ghTok + `"}`}, "",
			"record n1: data $.text holds the value of $GH_TOKEN; secrets never go into the ledger"},
		{"base64", []string{"--kind", "note", "--id", "n2", "--data", `{"auth":"` + b64 + `"}`}, "",
			"record n2: data $.auth holds the value of $GH_TOKEN (base64-encoded)"},
		{"json-escaped", []string{"--kind", "note", "--id", "n3", "--data", `{"text":"\u0058` + ghTok[1:] + `"}`}, "",
			"data $.text holds the value of $GH_TOKEN"},
		{"attachment", []string{"--kind", "note", "--id", "n4", "--attach", "out.log=" + att}, "",
			`record n4: attachment "out.log" holds the value of $OPENAI_API_KEY`},
		{"record id", []string{"--kind", "note", "--id", "n-" + ghTok}, "", "the record id holds the value of $GH_TOKEN"},
		{"batch", []string{"--batch"}, `{"kind":"note","id":"b1","data":{}}` + "\n" +
			`{"kind":"x.ci","id":"b2","data":{"h":"` + hex.EncodeToString([]byte(openaiKey)) + `"}}` + "\n", "event 2 of the batch: record b2: data $.h holds the value of $OPENAI_API_KEY (hex-encoded)"},
	}
	for _, c := range cases {
		var stdin []byte
		if c.in != "" {
			stdin = []byte(c.in)
		}
		_, errOut, code := withSecrets(t, dir, stdin, tokens, append([]string{"agentproto", "ledger", "append"}, c.args...)...)
		if code != 5 || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 5 and %q", c.name, code, errOut, c.want)
		}
		if strings.Contains(errOut, ghTok) || strings.Contains(errOut, openaiKey) {
			t.Errorf("%s: the message shows the secret: %s", c.name, errOut)
		}
	}
	if n := countEvents(t, dir); n != 0 {
		t.Fatalf("%d events recorded by refused appends", n)
	}
	// The same environment records clean events.
	if _, errOut, code := withSecrets(t, dir, nil, tokens, "agentproto", "ledger", "append", "--kind", "note", "--id", "ok", "--data", `{"text":"build passed"}`); code != 0 {
		t.Fatalf("a clean append: exit %d %s", code, errOut)
	}
	requireAbsent(t, dir, ghTok, openaiKey, b64, hex.EncodeToString([]byte(openaiKey)))
}

func TestSupervisorProposeRefusesAProfileKey(t *testing.T) {
	dir := newRepo(t)
	// LLM_CRED does not look secret by its name: only key_env makes it so.
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte("[profiles.cheap]\nadapter = \"codex\"\nauth = \"api-key\"\nkey_env = \"LLM_CRED\"\n"), 0o644)
	env := []string{"LLM_CRED=" + modelKey}
	run := func(want int, args ...string) string {
		t.Helper()
		out, errOut, code := withSecrets(t, dir, nil, env, append([]string{"agentproto"}, args...)...)
		if code != want {
			t.Fatalf("%v: exit %d, want %d\n%s%s", args, code, want, out, errOut)
		}
		return errOut
	}
	run(0, "init")
	run(0, "peer", "register", "sup", "--adapter", "scripted")
	run(0, "peer", "register", "alice", "--adapter", "scripted")
	run(0, "goal", "new", "g1", "--title", "Ship it")
	run(0, "goal", "configure", "--goal-id", "g1", "--supervisor-agent", "sup", "--supervised-agent", "alice", "--execute")
	decision := map[string]any{"schema": "supervisor_decision_v0", "decision_id": "d-1", "kind": "inject",
		"reason_codes": []string{"blocked_peer"}, "evidence_refs": []string{"issue:1"}, "target": "alice",
		"message": "use this key: " + modelKey}
	e := run(5, "supervisor", "event", "propose", "--goal-id", "g1", "--agent-id", "sup", "--decision-json", writeJSON(t, decision), "--execute")
	if !strings.Contains(e, "$.message holds the value of $LLM_CRED") || strings.Contains(e, modelKey) {
		t.Fatal(e)
	}
	decision["message"] = "key, encoded: " + base64.RawURLEncoding.EncodeToString([]byte("k="+modelKey))
	e = run(5, "supervisor", "event", "propose", "--goal-id", "g1", "--agent-id", "sup", "--decision-json", writeJSON(t, decision), "--execute")
	if !strings.Contains(e, "$LLM_CRED (base64") {
		t.Fatal(e)
	}
	decision["message"] = "please publish the token type first"
	run(0, "supervisor", "event", "propose", "--goal-id", "g1", "--agent-id", "sup", "--decision-json", writeJSON(t, decision), "--execute")
	run(5, "lesson", "add", "the key is "+modelKey)
	requireAbsent(t, dir, modelKey)
}

// ghHosts is a gh CLI login file holding the token, which a gate can read
// from $HOME even when its environment holds no token.
func ghHosts(t *testing.T) []byte {
	hosts := []byte("github.com:\n    user: someone\n    oauth_token: " + ghTok + "\n    git_protocol: https\n")
	p := filepath.Join(homeOf(t), ".config", "gh", "hosts.yml")
	os.MkdirAll(filepath.Dir(p), 0o700)
	if err := os.WriteFile(p, hosts, 0o600); err != nil {
		t.Fatal(err)
	}
	return hosts
}

// leakCommand prints the environment, our keys by name, and the gh login
// file as is and base64-encoded (wrapped at 76 columns, as base64 does).
const leakCommand = `env; echo "openai=$OPENAI_API_KEY gh=$GH_TOKEN"; cat "$HOME/.config/gh/hosts.yml"; base64 "$HOME/.config/gh/hosts.yml"`

// requireScrubbedLog checks a log recorded in the ledger: the command ran
// (marker), our tokens are not in it in any form, the file's token was
// redacted.
func requireScrubbedLog(t *testing.T, dir, log, marker string, hosts []byte) {
	t.Helper()
	if !strings.Contains(log, marker) || !strings.Contains(log, "openai= gh=\n") || !strings.Contains(log, "oauth_token: [redacted:GH_TOKEN]") {
		t.Fatalf("the recorded log:\n%s", log)
	}
	// The characters of the token's base64, wherever base64(1) broke the line.
	enc := base64.StdEncoding.EncodeToString(hosts)
	at := bytes.Index(hosts, []byte(ghTok))
	core := enc[(8*at+5)/6 : 8*(at+len(ghTok))/6]
	if strings.Contains(strings.ReplaceAll(log, "\n", ""), core) {
		t.Fatalf("the log holds the token base64-encoded:\n%s", log)
	}
	requireAbsent(t, dir, ghTok, openaiKey, core)
}

func TestGateLogInTheLedgerHoldsNoToken(t *testing.T) {
	dir := newRepo(t)
	hosts := ghHosts(t)
	write := func(name, text string) {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("gate.sh", leakCommand+"\necho gate-ran\n")
	write("AGENTS.md", "# Definition of done\n")
	// The scrubber is the last line: with the sandbox on, the gate cannot
	// read hosts.yml at all (TestGateRunsAgentTestsInTheSandbox); off, what
	// it prints must be scrubbed.
	write("agentproto.toml", sandboxOff+"[dispatch]\nadapter = \"scripted\"\n[gates]\npass_env = [\"MYTOOL_*\"]\n")
	must(t, dir, "git", "add", "-A")
	must(t, dir, "git", "commit", "-q", "-m", "project")
	must(t, dir, "git", "agentproto", "init")
	must(t, dir, "git", "agentproto", "plan", "init", "demo", "--gate", "sh gate.sh")
	write(".plans/demo/plan.toml", "name = \"demo\"\nbase = \"main\"\ngate = \"sh gate.sh\"\n[[wp]]\nid = \"WP0\"\ntitle = \"one\"\nowns = [\"lib/**\"]\n")
	brief := filepath.Join(dir, ".plans/demo/WP0-brief.md")
	b, _ := os.ReadFile(brief)
	text := strings.Replace(string(b), "- (fork): default (choice).", "- input: default stdin.", 1) +
		"\n## Script\n```agentproto-script\n" +
		`{"op":"write","path":"lib/one.sh","content":"echo one\n"}` + "\n" +
		`{"op":"report","report":{"wp":"WP0","files":["lib/one.sh"],"design_choices":[],"wiring":[],"exit_codes":[]}}` +
		"\n```\n"
	os.WriteFile(brief, []byte(text), 0o644)
	must(t, dir, "git", "agentproto", "plan", "freeze", "demo")

	env := append([]string{"MYTOOL_HOME=/opt/mytool", "UNRELATED_SETTING=zzz"}, tokens...)
	out, errOut, code := withSecrets(t, dir, nil, env, "agentproto", "dispatch", "demo")
	if code != 0 || !strings.Contains(out, "WP0   verify     pass") {
		t.Fatalf("dispatch: exit %d\n%s%s", code, out, errOut)
	}
	// The gate log attached to wp_verified, read with git alone.
	var log string
	for _, ref := range strings.Fields(must(t, dir, "git", "for-each-ref", "--format=%(refname)", "refs/agentproto/")) {
		for _, c := range strings.Fields(must(t, dir, "git", "rev-list", ref)) {
			if strings.Contains(must(t, dir, "git", "log", "-1", "--format=%s", c), "wp_verified") {
				log = must(t, dir, "git", "cat-file", "blob", c+":gate.log")
			}
		}
	}
	if log == "" {
		t.Fatal("no wp_verified event with a gate.log")
	}
	requireScrubbedLog(t, dir, log, "gate-ran", hosts)
	// What a build needs and what [gates] pass_env names, nothing else.
	if !strings.Contains(log, "\nMYTOOL_HOME=/opt/mytool\n") || !strings.Contains(log, "\nPATH=") || strings.Contains(log, "UNRELATED_SETTING") {
		t.Fatalf("the gate's environment:\n%s", log)
	}
}

func TestSetupHookLogHoldsNoToken(t *testing.T) {
	dir := newRepo(t)
	hosts := ghHosts(t)
	// Scrubbing is the last line: with the sandbox on, the hook cannot
	// read hosts.yml at all; off, what it prints must be scrubbed.
	toml := sandboxOff + "[worktree]\nsetup = ['" + leakCommand + "']\n"
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte(toml), 0o644)
	must(t, dir, "git", "add", "-A")
	must(t, dir, "git", "commit", "-q", "-m", "hooks")
	must(t, dir, "git", "agentproto", "init")
	must(t, dir, "git", "agentproto", "trust")
	_, errOut, code := withSecrets(t, dir, nil, tokens, "agentproto", "worktree", "new", "one")
	if code != 0 {
		t.Fatalf("worktree new: exit %d\n%s", code, errOut)
	}
	var log string
	for _, ref := range strings.Fields(must(t, dir, "git", "for-each-ref", "--format=%(refname)", "refs/agentproto/")) {
		for _, c := range strings.Fields(must(t, dir, "git", "rev-list", ref)) {
			if l, _, err := sh(t, dir, nil, "git", "cat-file", "blob", c+":setup.log"); err == nil {
				log = l
			}
		}
	}
	if log == "" {
		t.Fatal("no event with a setup.log")
	}
	requireScrubbedLog(t, dir, log, "AGENTPROTO_SLUG=one", hosts)
}

// The whole pipeline with tokens in its environment: the e2e command's log
// (and every gate's: verify, consolidate, review) holds none of them.
func TestPipelineRunRecordsNoToken(t *testing.T) {
	dir := pipelineRepo(t, "", "lower lib/lower.sh")
	hosts := ghHosts(t)
	// The scrubber is the last line: off, the sandbox lets the command
	// read hosts.yml, and what it prints must be scrubbed.
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte(sandboxOff+"[dispatch]\nadapter = \"scripted\"\n[e2e]\ncommands = ['"+leakCommand+"; echo e2e-ran']\n"), 0o644)
	out, errOut, code := withSecrets(t, dir, nil, tokens, "agentproto", "run", "demo")
	if code != 0 || !strings.Contains(errOut, "merged [WP0 WP1 WP2]") {
		t.Fatalf("run: exit %d\n%s%s", code, out, errOut)
	}
	var log string
	for _, c := range strings.Fields(must(t, dir, "git", "rev-list", "--glob=refs/agentproto/ledger/*")) {
		if l, _, err := sh(t, dir, nil, "git", "cat-file", "blob", c+":e2e-1.log"); err == nil {
			log = l
		}
	}
	if log == "" {
		t.Fatal("no plan_e2e event with e2e-1.log")
	}
	requireScrubbedLog(t, dir, log, "e2e-ran", hosts)
}
