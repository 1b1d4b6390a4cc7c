package judge

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// A custom gate whose check no longer looks at the product: every
// mutant of the changed script passes it, and the change is untested;
// with the honest check, the mutants are killed.
func TestGateMutationFindsAGuttedCheck(t *testing.T) {
	const gate = "for c in checks/*.check; do sh \"$c\" || exit 1; done"
	neg := "#!/bin/sh\n# neg N\n[ -z \"$1\" ] && { echo 0; exit 0; }\necho $((0 - $1))\n"
	for _, c := range []struct {
		check    string
		untested bool
	}{
		{"sh calc/neg.sh 4 >/dev/null || true\n", true},
		{"[ \"$(sh calc/neg.sh 4)\" = -4 ]\n[ \"$(sh calc/neg.sh)\" = 0 ]\n", false},
	} {
		head := writeTree(t, map[string]string{"calc/neg.sh": neg, "checks/neg.check": c.check})
		lines := map[string][]int{"calc/neg.sh": {3, 4}, "checks/neg.check": {1}}
		fs, used := gateMutation(context.Background(), head, gate, lines, []string{"calc/neg.sh", "checks/neg.check"}, time.Minute)
		got := codes(fs)
		if strings.Contains(got, "untested") != c.untested || used == 0 {
			t.Errorf("check %q: findings %v (after %s), want untested %v", c.check, fs, used, c.untested)
		}
		for _, f := range fs {
			if f.Code == "untested" && (f.File != "calc/neg.sh" || !strings.Contains(f.Message, "becoming") || f.Severity != "error") {
				t.Errorf("the finding must name the product file and show a surviving mutant: %+v", f)
			}
		}
	}
}

func TestChangedLines(t *testing.T) {
	diff := "diff --git a/x.sh b/x.sh\n--- a/x.sh\n+++ b/x.sh\n@@ -3 +3,2 @@\n-a\n+b\n+c\n@@ -9,0 +11 @@\n+d\ndiff --git a/n.py b/n.py\n--- /dev/null\n+++ b/n.py\n@@ -0,0 +1,2 @@\n+x\n+y\n"
	got, err := changedLines(func(...string) ([]byte, error) { return []byte(diff), nil }, "a", "b")
	if err != nil {
		t.Fatal(err)
	}
	if x, n := fmt.Sprint(got["x.sh"]), fmt.Sprint(got["n.py"]); x != "[3 4 11]" || n != "[1 2]" {
		t.Fatalf("changed lines %v", got)
	}
}

// Lines the gate never tested, before the change or after, are a warning
// when the change left the tests alone: the gap is not the change's doing.
func TestGateMutationUntouchedTestsWarn(t *testing.T) {
	head := writeTree(t, map[string]string{"calc/neg.sh": "echo $((0 - $1))\n", "checks/other.check": "true\n"})
	fs, _ := gateMutation(context.Background(), head, "sh checks/other.check", map[string][]int{"calc/neg.sh": {1}}, []string{"calc/neg.sh"}, time.Minute)
	if len(fs) != 1 || fs[0].Code != "untested" || fs[0].Severity != "warning" {
		t.Fatalf("findings %+v, want one untested warning", fs)
	}
}
