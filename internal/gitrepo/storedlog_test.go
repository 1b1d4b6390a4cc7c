package gitrepo

import (
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

// commitRaw writes a commit object of the given content (git hash-object
// does not check it) and returns its id.
func commitRaw(t *testing.T, dir, content string) string {
	t.Helper()
	cmd := exec.Command("git", "hash-object", "-t", "commit", "-w", "--stdin", "--literally")
	cmd.Dir, cmd.Stdin = dir, strings.NewReader(content)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hash-object: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// TestStoredRangeAgreesWithGit holds Log since..tip read from the stored
// objects against git log on one chain of commits whose messages git
// prints in every way it can (empty, without a final newline, CRLF,
// leading blank lines, non-ASCII, a signature header), and checks that
// those were answered in-process; a merge, a root, an encoding header, a
// NUL in a message and a since that is not on the chain are left to git,
// whose answer Log still gives.
func TestStoredRangeAgreesWithGit(t *testing.T) {
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q", "-b", "main")
	tree := gitIn(t, dir, "mktree")
	who := "author t <t@e> 1700000000 +0000\ncommitter t <t@e> 1700000000 +0000\n"
	commit := func(parents []string, extra, msg string) string {
		h := "tree " + tree + "\n"
		for _, p := range parents {
			h += "parent " + p + "\n"
		}
		return commitRaw(t, dir, h+who+extra+"\n"+msg)
	}
	root := commit(nil, "", "root\n")
	chain := []string{root}
	for _, msg := range []string{"", "no final newline", "crlf\r\nbody\r\n", "\n\nleading blank lines\n", "héllo wörld\n\nbody\n\nSigned-off-by: t <t@e>\n"} {
		chain = append(chain, commit([]string{chain[len(chain)-1]}, "", msg))
	}
	chain = append(chain, commit([]string{chain[len(chain)-1]}, "gpgsig -----BEGIN PGP SIGNATURE-----\n parent 0000000000000000000000000000000000000000\n -----END PGP SIGNATURE-----\n", "signed\n"))
	tip := chain[len(chain)-1]
	gitIn(t, dir, "update-ref", "refs/heads/main", tip)
	repo, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	viaGit := func(rng string) []CommitInfo {
		out, err := repo.Git("log", "-z", commitFormat, "--end-of-options", rng)
		if err != nil {
			t.Fatal(err)
		}
		return parseCommits(out)
	}
	for i, since := range chain {
		for _, to := range []string{"refs/heads/main", "HEAD", tip} {
			rng := since + ".." + to
			got, ok := repo.storedRange(rng)
			if want := viaGit(rng); !ok || !reflect.DeepEqual(got, want) {
				t.Errorf("log %s (chain %d, answered %v):\n got %q\nwant %q", rng, i, ok, got, want)
			}
		}
	}

	// Each of these is git's to answer, and Log gives git's answer.
	side := commit([]string{root}, "", "side\n")
	merge := commit([]string{tip, side}, "", "merge\n")
	encoded := commit([]string{tip}, "encoding ISO-8859-1\n", "caf\xe9\n")
	withNUL := commit([]string{tip}, "", "before\x00after\n")
	other := commit(nil, "", "another root\n")
	for name, rng := range map[string]string{
		"merge":              tip + ".." + merge,
		"merge below":        root + ".." + commit([]string{merge}, "", "after the merge\n"),
		"encoding":           tip + ".." + encoded,
		"NUL":                tip + ".." + withNUL,
		"since not on chain": side + ".." + tip,
		"unrelated":          other + ".." + tip,
		"not a range":        tip,
		"symmetric":          root + "..." + tip,
	} {
		if _, ok := repo.storedRange(rng); ok {
			t.Errorf("%s (%s): answered in-process", name, rng)
		}
		got, err := repo.Log(rng)
		if want := viaGit(rng); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: Log %q (%v), git %q", name, got, err, want)
		}
	}
}
