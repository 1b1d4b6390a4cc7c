package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// [sessions] pass_env hands named variables of the caller's environment
// to the agents (a build cache, here), and never a secret: a prefix that
// reaches a secret-shaped name leaves it out, a value holding one of our
// tokens is left out, and naming a token is a configuration error that
// starts nothing.
func TestSessionsPassEnvReachesTheAgentButNoSecret(t *testing.T) {
	dir := newRepo(t)
	must(t, dir, "git", "agentproto", "init")
	cache := filepath.Join(t.TempDir(), "gocache")
	os.Mkdir(cache, 0o755)
	env := []string{"GOCACHE=" + cache, "MYTOOL_HOME=/opt/mytool", "MYTOOL_TOKEN=Zk4Lq8Wr2Vx7Mn4Bt9Wc", "MYTOOL_URL=https://x.example/" + ghTok,
		"GH_TOKEN=" + ghTok, "GOFLAGS=-mod=mod"}
	config := func(pass string) {
		os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte("[sessions]\npass_env = ["+pass+"]\n"), 0o644)
	}
	work := t.TempDir()
	// The agent builds into the cache it was given: the sandbox lets it.
	prompt := script(`{"op":"run","cmd":"env > env.txt; touch \"$GOCACHE/built\""}`)
	start := func() (string, string, error) {
		return shEnv(t, dir, env, "git", "agentproto", "sessions", "start", "--adapter", "scripted", "--dir", work, "--prompt", prompt)
	}

	config(`"GOCACHE", "MYTOOL_*"`)
	out, errOut, err := start()
	if err != nil {
		t.Fatalf("sessions start: %v\n%s", err, errOut)
	}
	must(t, dir, "git", "agentproto", "sessions", "wait", strings.TrimSpace(out), "--timeout", "1m")
	b, err := os.ReadFile(filepath.Join(work, "env.txt"))
	if err != nil {
		t.Fatal(err)
	}
	seen := "\n" + string(b)
	if _, err := os.Stat(filepath.Join(cache, "built")); err != nil {
		t.Errorf("the agent could not write into the GOCACHE it was given: %v", err)
	}
	for _, want := range []string{"\nGOCACHE=" + cache + "\n", "\nMYTOOL_HOME=/opt/mytool\n"} {
		if !strings.Contains(seen, want) {
			t.Errorf("the agent's environment lacks %q:\n%s", strings.TrimSpace(want), b)
		}
	}
	for _, not := range []string{"\nGH_TOKEN=", "\nMYTOOL_TOKEN=", "\nMYTOOL_URL=", "\nGOFLAGS=", ghTok} {
		if strings.Contains(seen, not) {
			t.Errorf("the agent's environment holds %q:\n%s", strings.TrimSpace(not), b)
		}
	}

	for pass, why := range map[string]string{
		`"GOCACHE", "GH_TOKEN"`: `sessions.pass_env: entry 2 ("GH_TOKEN") would pass $GH_TOKEN`,
		`"DEPLOY_TOKEN"`:        `sessions.pass_env: entry 1 ("DEPLOY_TOKEN") names a secret`,
		`"GH_*"`:                `sessions.pass_env: entry 1 ("GH_*") would pass $GH_TOKEN`,
	} {
		config(pass)
		before := must(t, dir, "git", "agentproto", "sessions", "ls", "--all")
		out, errOut, err := start()
		if exitCode(err) != 2 || !strings.Contains(errOut, why) || out != "" {
			t.Errorf("pass_env = [%s]: exit %d, want 2 and %q\n%s%s", pass, exitCode(err), why, out, errOut)
		}
		if after := must(t, dir, "git", "agentproto", "sessions", "ls", "--all"); after != before {
			t.Errorf("a refused configuration started a session:\n%s", after)
		}
	}
}
