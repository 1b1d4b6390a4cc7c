package e2e

import (
	"strings"
	"testing"
)

// pr open (and so the CI recipe's dry run) needs to know the repository:
// with neither a GitHub remote nor [pr] repo, the first error names both
// ways to say it, and nothing is pushed or recorded.
func TestPROpenDryRunNamesRemoteAndRepo(t *testing.T) {
	dir := newRepo(t)
	must(t, dir, "git", "agentproto", "init")
	must(t, dir, "git", "agentproto", "plan", "init", "demo")
	before := must(t, dir, "git", "agentproto", "ledger", "log", "--json")
	for _, remote := range []string{"", "/srv/git/app.git"} {
		if remote != "" {
			must(t, dir, "git", "remote", "add", "origin", remote)
		}
		_, errOut, err := sh(t, dir, nil, "git", "agentproto", "pr", "open", "demo", "--dry-run")
		if exitCode(err) != 2 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, `[pr] repo = "OWNER/NAME"`) ||
			!strings.Contains(errOut, "remote") || !strings.Contains(errOut, "OWNER/NAME") {
			t.Errorf("remote %q: exit %d: %s", remote, exitCode(err), errOut)
		}
		if remote == "" && !strings.Contains(errOut, "git remote add origin https://github.com/OWNER/NAME") {
			t.Errorf("no remote: %s", errOut)
		}
	}
	if after := must(t, dir, "git", "agentproto", "ledger", "log", "--json"); after != before {
		t.Errorf("the ledger changed:\n%s", after)
	}
}
