package worktree

import (
	"strings"
	"testing"
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
