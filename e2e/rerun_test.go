package e2e

import (
	"strings"
	"testing"
)

// A finished pipeline run again continues: consolidate twice and run twice
// recognise their earlier outcome; pr open --dry-run takes owner/repo from
// the remote URL, ssh or https.
func TestFinishedPipelineRunsAgainAndPRTargetFromRemote(t *testing.T) {
	dir := pipelineRepo(t, "", "lower lib/lower.sh")
	defer sh(t, dir, nil, "git", "agentproto", "sessions", "gc", "--apply")
	if out, errOut, err := sh(t, dir, nil, "git", "agentproto", "run", "demo"); err != nil {
		t.Fatalf("run: %v\n%s\n%s", err, out, errOut)
	}
	for i := 0; i < 2; i++ {
		if out, errOut, err := sh(t, dir, nil, "git", "agentproto", "consolidate", "demo"); err != nil {
			t.Fatalf("consolidate again (%d): exit %d\n%s\n%s", i+1, exitCode(err), out, errOut)
		}
	}
	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "run", "demo")
	if err != nil || !strings.Contains(errOut, "all green") {
		t.Fatalf("run again: exit %d\n%s\n%s", exitCode(err), out, errOut)
	}

	for _, url := range []string{"git@github.com:acme/app.git", "https://ghe.example.com/acme/my.app"} {
		sh(t, dir, nil, "git", "remote", "remove", "origin")
		must(t, dir, "git", "remote", "add", "origin", url)
		out, errOut, err := sh(t, dir, nil, "git", "agentproto", "pr", "open", "demo", "--dry-run")
		host, name := "github.com", "app"
		if strings.HasPrefix(url, "https") {
			host, name = "ghe.example.com", "my.app"
		}
		if err != nil || !strings.Contains(out, "/repos/acme/"+name+"/pulls") || !strings.Contains(out, host) {
			t.Fatalf("pr open --dry-run with remote %s: exit %d\n%s\n%s", url, exitCode(err), out, errOut)
		}
	}
}
