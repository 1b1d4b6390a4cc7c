package sandbox_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/sandbox"
)

// Reads derived from where programs live never open HOME or the runtime
// directory: a bin's parent that holds HOME, a PATH entry that is HOME, a
// script and an adapter kept in HOME (their file alone is opened), a
// bin's parent that holds the runtime directory. As the same unprivileged
// user, a PATH of /srv/x/bin with HOME at /srv/x/home let an agent read
// gh's hosts.yml, the seal keys and the daemon's control token.
func TestDerivedReadsNeverHoldHomeOrTheRuntimeDir(t *testing.T) {
	root := t.TempDir()
	home, run := filepath.Join(root, "home"), filepath.Join(root, "state", "agentproto-7")
	tools := filepath.Join(root, "bin")
	for _, d := range []string{home, run, tools, filepath.Join(root, "state", "bin")} {
		os.MkdirAll(d, 0o755)
	}
	script, adapter := filepath.Join(home, "agent.sh"), filepath.Join(home, "agentproto-adapter-x")
	os.WriteFile(script, nil, 0o755)
	os.WriteFile(adapter, nil, 0o755)
	path := strings.Join([]string{tools, home, filepath.Join(root, "state", "bin"), "/usr/bin"}, ":")
	p, err := sandbox.ForSession(sandbox.SessionSpec{Home: home, Runtime: run, Path: path, Adapter: adapter,
		Options: map[string]string{"command": "sh " + script}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range p.Read {
		for _, secret := range []string{home, run} {
			if r == secret || strings.HasPrefix(secret, strings.TrimSuffix(r, "/")+"/") {
				t.Errorf("the read rule %s opens %s", r, secret)
			}
		}
	}
	for _, want := range []string{tools, script, adapter, "/usr/bin"} {
		if !slices.Contains(p.Read, want) {
			t.Errorf("%s not readable: %v", want, p.Read)
		}
	}
}

// A readable path the configuration adds may not be, or hold, what is
// private: gh's configuration, ~/.ssh, the ledger's seal keys, the
// runtime directory; a place beside them stays fine.
func TestForSessionRefusesReadablePathsOverSecrets(t *testing.T) {
	home, run := t.TempDir(), t.TempDir()
	for _, r := range []string{home, filepath.Join(home, ".ssh"), filepath.Join(home, ".config"), filepath.Join(home, ".config", "gh", "hosts.yml"), filepath.Join(home, ".local", "state", "agentproto", "seals"),
		filepath.Join(home, ".local", "state"), run, filepath.Dir(run)} {
		if _, err := sandbox.ForSession(sandbox.SessionSpec{Home: home, Runtime: run, Readable: []string{r}}); err == nil {
			t.Errorf("readable %s was accepted", r)
		}
	}
	if _, err := sandbox.ForSession(sandbox.SessionSpec{Home: home, Runtime: run, Readable: []string{filepath.Join(home, "toolchains")}}); err != nil {
		t.Errorf("a readable toolchain in HOME: %v", err)
	}
}
