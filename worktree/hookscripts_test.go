package worktree

import (
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/repopath"
)

func TestScriptCandidates(t *testing.T) {
	got := strings.Join(scriptCandidates([]string{
		`sh ./setup.sh&&bash 'scripts/with space.sh'`,
		`make -C tools setup >log.txt; ./bin/x --config=conf/a.toml`,
		`FOO=bar.sh python3 -m x "$(cat list.txt)" | tee /tmp/abs ../up`,
		`echo "unbalanced`,
	}, map[string]string{"BASH_ENV": "env/init.sh"}), ",")
	for _, want := range []string{"setup.sh", "scripts/with space.sh", "tools", "Makefile", "conf/a.toml", "bin/x", "bar.sh", "list.txt", "env/init.sh", "log.txt"} {
		if !strings.Contains(","+got+",", ","+want+",") {
			t.Errorf("candidates lack %q: %s", want, got)
		}
	}
	for _, bad := range []string{"/tmp/abs", "../up", "./setup.sh", "&&"} {
		if strings.Contains(","+got+",", ","+bad+",") {
			t.Errorf("candidates hold %q: %s", bad, got)
		}
	}
}

// FuzzScriptCandidates: whatever a hook command holds, the candidates are
// clean repository paths, each once, and nothing panics.
func FuzzScriptCandidates(f *testing.F) {
	for _, s := range []string{"sh setup.sh", "make -C tools", `echo "$(cat x)" > y`, "a\x00b ../c /d", `'unbalanced`, "x=../y;z|w&&v"} {
		f.Add(s, "BASH_ENV=env.sh")
	}
	f.Fuzz(func(t *testing.T, cmd, env string) {
		k, v, _ := strings.Cut(env, "=")
		seen := map[string]bool{}
		for _, c := range scriptCandidates([]string{cmd}, map[string]string{k: v}) {
			if clean, err := repopath.Clean(c); err != nil || clean != c || seen[c] {
				t.Fatalf("candidate %q of %q: clean %q, %v, repeated %v", c, cmd, clean, err, seen[c])
			}
			seen[c] = true
		}
	})
}

// FuzzTrustLine: a trust record written and read back is the same record;
// any line reads without panicking.
func FuzzTrustLine(f *testing.F) {
	f.Add("abc 2026-01-01T00:00:00Z c0ffee cmds=x scripts=e30", "setup.sh", "0123")
	f.Add("only-a-digest", "tools/", "")
	f.Fuzz(func(t *testing.T, line, path, oid string) {
		parseTrustLine(line)
		// Git paths hold no NUL, candidates no newline; spaces are fine,
		// the scripts are encoded.
		if path == "" || strings.ContainsAny(path+oid, "\x00\n") {
			return
		}
		r := trustRecord{digest: "d", time: "t", commit: "c", commands: "m", scripts: map[string]string{path: oid}}
		back, ok := parseTrustLine(r.line())
		if !ok || back.digest != "d" || back.commit != "c" || back.commands != "m" || back.scripts[path] != oid {
			t.Fatalf("round trip of %+v gave %+v", r, back)
		}
	})
}
