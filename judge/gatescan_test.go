package judge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMaskedGateFollowsScripts: masks are found in the gate command and
// in the scripts it names, through make, globs and nested calls; honest
// error handling is not flagged; nothing outside the worktree is read.
func TestMaskedGateFollowsScripts(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "evil.sh")
	os.WriteFile(outside, []byte("false || true\n"), 0o644)
	files := map[string]string{
		"Makefile":            "test:\n\t-go vet ./...\n\tsh scripts/run.sh\n",
		"scripts/run.sh":      "#!/bin/sh\nfor t in tests/*_test.sh; do sh \"$t\" || exit 1; done\nsh scripts/inner.sh\n",
		"scripts/inner.sh":    "set +e\ngo test ./...\n",
		"tests/a_test.sh":     "[ -e x ] || continue\ntest 1 = 1 || exit 1\n",
		"tests/b_test.sh":     "go test ./... ; exit 0\n",
		"tests/c_test.sh":     "go test ./...\nexit 0\n",
		"tests/d_test.sh":     "set -e\ngo test ./...\nexit 0\n",
		"notes/unnamed.sh":    "false || true\n",
		"tests/e_test.sh":     "grep -q x f || :\n",
		"tests/f_not_test.py": "x = a or True\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(text), 0o644)
	}
	os.Symlink(outside, filepath.Join(dir, "scripts", "link.sh"))
	// At the base the Makefile already ignored vet's errors, and
	// tests/e_test.sh already had its "|| :" once; its second one is new.
	files["tests/e_test.sh"] += "grep -q y f || :\n"
	os.WriteFile(filepath.Join(dir, "tests/e_test.sh"), []byte(files["tests/e_test.sh"]), 0o644)
	base := map[string]string{"Makefile": "test:\n\t-go vet ./...\n", "tests/e_test.sh": "grep -q x f || :\n"}
	got, inherited := MaskedGate(dir, "make test && sh scripts/link.sh && ./"+filepath.Base(outside)+" || true", func(name string) []byte {
		if b, ok := base[name]; ok {
			return []byte(b)
		}
		return nil
	})
	if len(inherited) != 2 || !strings.Contains(inherited[0], "gate-masked-at-base: Makefile:2 ignores") || !strings.Contains(inherited[1], "tests/e_test.sh:1 has") {
		t.Errorf("inherited masks: %q", inherited)
	}
	text := strings.Join(got, "\n")
	for _, want := range []string{
		`the gate "make test && sh scripts/link.sh && ./evil.sh || true" has "|| true"`,
		"scripts/inner.sh:1 has \"set +e\"",
		"tests/b_test.sh:1 has \"; exit 0\"",
		"tests/c_test.sh:2 ends with \"exit 0\"",
		"gate-masked: tests/e_test.sh:2 has \"|| :\"",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in:\n%s", want, text)
		}
	}
	for _, not := range []string{"a_test.sh", "d_test.sh", "unnamed.sh", "link.sh", "f_not_test.py", "run.sh", "Makefile"} {
		if strings.Contains(text, " "+not+":") {
			t.Errorf("%s flagged:\n%s", not, text)
		}
	}
	if len(got) != 5 {
		t.Errorf("%d findings, want 5:\n%s", len(got), text)
	}
}

// FuzzScanScript: any script text is scanned without panicking, and each
// finding names the script.
func FuzzScanScript(f *testing.F) {
	f.Add("set -e\ngo test ./...\nexit 0\n")
	f.Add("\t-rm x\nfalse || true\n")
	f.Add("#!/bin/sh\ncmd ; exit 0")
	f.Fuzz(func(t *testing.T, text string) {
		for _, fd := range scanScript("s.sh", []byte(text)) {
			if !strings.HasPrefix(fd.finding, "s.sh:") {
				t.Fatalf("finding %q does not name the script", fd)
			}
		}
	})
}
