package gitref

import (
	"os/exec"
	"testing"
)

// ValidRefName must agree with git check-ref-format.
func TestValidRefNameAgreesWithGit(t *testing.T) {
	names := []string{"refs/heads/wt/x", "refs/heads/wt/a-b_c.d", "refs/heads/a..b", "refs/heads/a b",
		"refs/heads/.hidden", "refs/heads/x.lock", "refs/heads/x/", "refs/heads/x.", "refs/heads/a@{b",
		"refs/heads/a~1", "refs/heads/a^", "refs/heads/a:b", "refs/heads/a?", "refs/heads/a*", "refs/heads/a[b",
		"refs/heads/a\\b", "refs/heads//a", "refs/heads/ünï", "refs/heads/a\x01"}
	for _, n := range names {
		want := exec.Command("git", "check-ref-format", n).Run() == nil
		if got := ValidRefName(n); got != want {
			t.Errorf("ValidRefName(%q) = %v, git says %v", n, got, want)
		}
	}
}
