package catalog

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/repopath"
	"github.com/agentproto/agentproto/internal/testgit"
	"github.com/agentproto/agentproto/plugins/vocab"
)

func TestOptionScriptsNamesFilesOfTheDirOnly(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(dir, "agent.sh"), []byte("echo hi\n"), 0o755)
	os.MkdirAll(filepath.Join(dir, "tools"), 0o755)
	os.WriteFile(filepath.Join(dir, "tools", "wrap"), []byte("exec \"$@\"\n"), 0o755)
	os.WriteFile(filepath.Join(outside, "evil.sh"), []byte("rm -rf /\n"), 0o755)
	got, err := optionScripts("", dir, map[string]string{
		"command": "env X=tools/wrap sh agent.sh {prompt}",
		"extra":   "--config /etc/passwd ../" + filepath.Base(outside) + "/evil.sh",
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["agent.sh"] == "" || got["tools/wrap"] == "" {
		t.Fatalf("scripts = %v, want agent.sh and tools/wrap", got)
	}

	// A name leading out by a symlink cannot be trusted by its content.
	os.Symlink(outside, filepath.Join(dir, "out"))
	if _, err := optionScripts("", dir, map[string]string{"command": "sh out/evil.sh"}); err == nil || !strings.Contains(err.Error(), "cannot be trusted by content") {
		t.Fatalf("symlink out: err = %v", err)
	}
}

// A script named by absolute path inside the repository is the same file
// whether the options are checked in the repository (plugin trust) or in
// a worktree elsewhere (a dispatched session): one digest for both, which
// still follows the script's content.
func TestOptionsDigestOfAnAbsolutePathIsTheSameFromAWorktree(t *testing.T) {
	top, worktree := t.TempDir(), t.TempDir()
	if out, err := exec.Command("git", "init", "-q", top).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	agent := filepath.Join(top, "agent.sh")
	os.WriteFile(agent, []byte("v1\n"), 0o755)
	os.WriteFile(filepath.Join(worktree, "agent.sh"), []byte("v1\n"), 0o755)
	layer := OptionLayer{Section: "plugins.myexec", Adapter: "exec", Options: map[string]string{"command": "sh " + agent + " {prompt}"}}
	check := func(dir string) OptionsCheck {
		t.Helper()
		c, err := InspectOptions(top, dir, layer)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	inRepo, inWorktree := check(top), check(worktree)
	if inRepo.Digest != inWorktree.Digest || inRepo.Scripts[agent] == "" {
		t.Fatalf("repository %v, worktree %v: want one digest covering %s", inRepo.Scripts, inWorktree.Scripts, agent)
	}
	os.WriteFile(agent, []byte("v2\n"), 0o755)
	if check(worktree).Digest == inWorktree.Digest {
		t.Fatal("the script changed and the digest did not")
	}
}

func TestOptionsDigestCoversScriptsAndCommand(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "agent.sh"), []byte("v1\n"), 0o755)
	layer := OptionLayer{Section: "plugins.exec", Adapter: "exec", Options: map[string]string{"command": "sh agent.sh", "ping": "silent"}}
	digest := func() string {
		c, _ := InspectOptions("", dir, layer)
		return c.Digest
	}
	d1 := digest()
	os.WriteFile(filepath.Join(dir, "agent.sh"), []byte("v2\n"), 0o755)
	d2 := digest()
	layer.Options = map[string]string{"command": "sh agent.sh -x", "ping": "silent"}
	d3 := digest()
	layer.Options = map[string]string{"command": "sh agent.sh -x", "ping": "loud"}
	d4 := digest()
	if d1 == "" || d1 == d2 || d2 == d3 || d3 != d4 {
		t.Fatalf("digests %q %q %q %q: a script or command change must change it, a data option must not", d1, d2, d3, d4)
	}
}

// A word the adapter runs is hashed even where a shell would read a
// comment: "#x" is the script sh runs here, whatever shlex makes of it.
func TestOptionScriptsCoverWhatTheAdapterRuns(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "#x"), []byte("echo pwned\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "run.sh"), []byte("echo hi\n"), 0o755)
	got, err := optionScripts("", dir, map[string]string{"command": "sh #x\nrun.sh"})
	if err != nil {
		t.Fatal(err)
	}
	if got["#x"] == "" || got["run.sh"] == "" {
		t.Fatalf("scripts = %v, want #x and run.sh", got)
	}
}

func FuzzOptionScripts(f *testing.F) {
	dir := f.TempDir()
	os.WriteFile(filepath.Join(dir, "a.sh"), []byte("x"), 0o644)
	os.Symlink("/etc", filepath.Join(dir, "etc"))
	f.Add("sh a.sh {prompt}")
	f.Add("sh #c\na.sh")
	f.Add("env A=../a.sh sh 'a b' \"$(cat etc/passwd)\"")
	f.Add("/" + dir + "/a.sh ./a.sh a.sh/../a.sh")
	f.Fuzz(func(t *testing.T, v string) {
		got, err := optionScripts("", dir, map[string]string{"command": v})
		if err != nil {
			return
		}
		// Whatever the adapter would run from dir is covered.
		if words, err := vocab.SplitCommand(v); err == nil {
			for _, w := range words {
				if w == "a.sh" && got["a.sh"] == "" {
					t.Fatalf("%q runs a.sh, but its content is not in the digest", v)
				}
			}
		}
		for p := range got {
			if filepath.IsAbs(p) && strings.HasPrefix(p, dir+string(filepath.Separator)) {
				continue // named by its absolute path, inside the directory
			}
			if c, cerr := repopath.Clean(p); cerr != nil || c != p {
				t.Fatalf("%q named %q, not a clean path inside the directory", v, p)
			}
		}
	})
}

// TestConfigCommittedAsksWhatAnyCommitCouldHaveWritten: an untracked
// agentproto.toml is the user's own; staged, committed, or committed and
// then taken out of the index (HEAD still holds what a commit wrote),
// its options need trust.
func TestConfigCommittedAsksWhatAnyCommitCouldHaveWritten(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	os.WriteFile(filepath.Join(dir, ConfigFile), []byte("[dispatch]\nadapter = \"exec\"\n"), 0o644)
	if ConfigCommitted(dir) {
		t.Fatal("an untracked agentproto.toml counted as committed")
	}
	testgit.Run(t, dir, "add", ConfigFile)
	if !ConfigCommitted(dir) {
		t.Fatal("a staged agentproto.toml counted as the user's own")
	}
	testgit.Run(t, dir, "commit", "-q", "-m", "config")
	if !ConfigCommitted(dir) {
		t.Fatal("a committed agentproto.toml counted as the user's own")
	}
	testgit.Run(t, dir, "rm", "-q", "--cached", ConfigFile)
	if !ConfigCommitted(dir) {
		t.Fatal("an agentproto.toml HEAD holds counted as the user's own once out of the index")
	}
	testgit.Run(t, dir, "commit", "-q", "-m", "untrack")
	if ConfigCommitted(dir) {
		t.Fatal("an agentproto.toml neither committed at HEAD nor staged counted as committed")
	}
}
