package e2e

import (
	"encoding/pem"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// reactionsRepo makes a repository with a frozen plan whose WP1 owns
// src/a.go and WP2 src/b.go, registry.txt shared, and a [pr] section
// pointing at host, then extra; the scripted executor does each WP's work.
func reactionsRepo(t *testing.T, host, extra string) string {
	t.Helper()
	dir := newRepo(t)
	write := func(name, text string) {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("test.sh", "#!/bin/sh\nfor t in tests/*_test.sh; do [ -e \"$t\" ] || continue; sh \"$t\" || exit 1; done\n")
	write("registry.txt", "# parts\n")
	write("AGENTS.md", "# Definition of done\n")
	write("agentproto.toml", "[dispatch]\nadapter = \"scripted\"\n[pr]\nrepo = \"acme/app\"\nhost = \""+host+"\"\n"+
		"[reactions.ci-failed]\naction = \"send-to-owner\"\nretries = 1\n"+extra)
	must(t, dir, "git", "add", "-A")
	must(t, dir, "git", "commit", "-q", "-m", "project")
	must(t, dir, "git", "agentproto", "init")
	must(t, dir, "git", "agentproto", "plan", "init", "demo", "--gate", "sh test.sh")
	must(t, dir, "git", "agentproto", "plan", "new-wp", "demo", "WP1")
	must(t, dir, "git", "agentproto", "plan", "new-wp", "demo", "WP2")
	write(".plans/demo/plan.toml", `name = "demo"
base = "main"
gate = "sh test.sh"
shared = ["registry.txt"]
[[wp]]
id = "WP0"
title = "contract"
owns = ["api/**"]
[[wp]]
id = "WP1"
title = "part a"
owns = ["src/a.go", "tests/a_test.sh"]
depends_on = ["WP0"]
[[wp]]
id = "WP2"
title = "part b"
owns = ["src/b.go", "tests/b_test.sh"]
depends_on = ["WP0"]
`)
	script := map[string]string{
		"WP0": `{"op":"write","path":"api/contract.txt","content":"A and B return strings\n"}
{"op":"report","report":{"wp":"WP0","files":["api/contract.txt"],"design_choices":[],"wiring":[],"exit_codes":[]}}`,
		"WP1": writeStep("src/a.go", "package src\n\nfunc A() string { return \"A\" }\n") + "\n" +
			`{"op":"write","path":"tests/a_test.sh","content":"grep -q 'func A' src/a.go\n"}` + "\n" + partReport("WP1", "a"),
		"WP2": writeStep("src/b.go", "package src\n\nfunc B() string { return \"B\" }\n") + "\n" +
			`{"op":"write","path":"tests/b_test.sh","content":"grep -q 'func B' src/b.go\n"}` + "\n" + partReport("WP2", "b"),
	}
	for wp, s := range script {
		p := filepath.Join(dir, ".plans/demo", wp+"-brief.md")
		b, _ := os.ReadFile(p)
		text := strings.Replace(string(b), "- (fork): default (choice).", "- input: default stdin.", 1)
		text += "\n## Script\n```agentproto-script\n" + s + "\n```\n"
		os.WriteFile(p, []byte(text), 0o644)
	}
	must(t, dir, "git", "agentproto", "plan", "freeze", "demo")
	return dir
}

// partReport is the report of WP1 (part a) or WP2 (part b).
func partReport(wp, part string) string {
	return fmt.Sprintf(`{"op":"report","report":{"wp":%q,"files":["src/%s.go","tests/%s_test.sh"],"design_choices":[],"wiring":[{"file":"registry.txt","line":"%s src/%s.go"}],"claims":["part:%s"],"exit_codes":[]}}`,
		wp, part, part, part, part, part)
}

// watchReport is what pr watch --json prints for one poll.
type watchReport struct {
	PR struct {
		Head  string `json:"head"`
		State string `json:"state"`
	} `json:"pr"`
	Observed  []string `json:"observed"`
	Reactions []struct {
		Item    string   `json:"item"`
		Trigger string   `json:"trigger"`
		WPs     []string `json:"wps"`
		Outcome string   `json:"outcome"`
		Step    string   `json:"step"`
		Commit  string   `json:"commit"`
		Reason  string   `json:"reason"`
		Tried   []string `json:"tried"`
	} `json:"reactions"`
	Pending []struct {
		Item        string `json:"item"`
		Escalated   bool   `json:"escalated"`
		RetriesLeft int    `json:"retries_left"`
		Reason      string `json:"reason"`
	} `json:"pending"`
}

func (r watchReport) outcome(item string) (string, string, string) {
	for _, x := range r.Reactions {
		if x.Item == item {
			return x.Outcome, strings.Join(x.WPs, ","), x.Reason + " " + strings.Join(x.Tried, "; ")
		}
	}
	return "", "", ""
}

// startPRGitHub stands up the loopback GitHub over TLS and returns it
// with its host and the environment pr commands need.
func startPRGitHub(t *testing.T, remote string) (*prGitHub, string, []string) {
	gh := newPRGitHub(t, remote)
	srv := httptest.NewTLSServer(gh)
	t.Cleanup(srv.Close)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644)
	env := []string{"GH_TOKEN=test-token", "GH_CONFIG_DIR=" + t.TempDir(), "AGENTPROTO_GITHUB_CA=" + ca}
	return gh, strings.TrimPrefix(srv.URL, "https://"), env
}
