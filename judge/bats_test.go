package judge

import (
	"os/exec"
	"strings"
	"testing"
)

func TestBatsJudge(t *testing.T) {
	cases := []struct{ name, body, want string }{
		{"status checked", `run ./lower.sh AB; [ "$status" -eq 0 ]; [ "$output" = ab ]`, ""},
		{"assert helpers", `run ./lower.sh AB; assert_success; assert_output ab`, ""},
		{"command that must succeed", `./lower.sh AB > out`, ""},
		{"double brackets", `run ./lower.sh AB; [[ $output == ab ]]`, ""},
		{"run unchecked", `run ./lower.sh AB; echo "$output"`, "test-no-assertion"},
		{"check swallowed", `run ./lower.sh AB; [ "$output" = ab ] || true`, "assertion-cannot-fail test-no-assertion"},
		{"same operands", `run ./lower.sh AB; [ "$status" -eq "$status" ]`, "assertion-cannot-fail test-no-assertion"},
		{"check only in a condition", `run ./lower.sh AB; if [ "$output" != ab ]; then echo wrong; fi`, "test-no-assertion"},
		{"fail in a branch", `run ./lower.sh AB; if [ "$output" != ab ]; then false; fi`, ""},
		{"skipped", `skip "later"; [ 1 -lt 2 ]`, "test-skipped"},
		{"guarded skip", `command -v tr || skip "no tr"; run ./lower.sh AB; [ "$output" = ab ]`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := "#!/usr/bin/env bats\n\n@test \"lowers\" {\n  " + strings.ReplaceAll(c.body, "; ", "\n  ") + "\n}\n"
			base := writeTree(t, nil)
			head := writeTree(t, map[string]string{"t/lower.bats": src})
			if got := codes(batsFindings(base, head, []string{"t/lower.bats"})); got != c.want {
				t.Errorf("findings %q, want %q\n%s", got, c.want, src)
			}
		})
	}
}

// Only the @test blocks new or changed since the base are judged.
func TestBatsJudgesOnlyChanged(t *testing.T) {
	old := "@test \"a\" {\n  run true\n}\n"
	base := writeTree(t, map[string]string{"a.bats": old})
	head := writeTree(t, map[string]string{"a.bats": old + "@test \"b\" {\n  [ 1 -lt 2 ]\n}\n"})
	if fs := batsFindings(base, head, []string{"a.bats"}); len(fs) != 0 {
		t.Fatalf("an unchanged test is judged: %+v", fs)
	}
}

// With the real bats, each test's outcome is read from its TAP output.
func TestBatsTestsRealBats(t *testing.T) {
	if _, err := exec.LookPath("bats"); err != nil {
		t.Skip("bats is not on PATH")
	}
	dir := writeTree(t, map[string]string{"t/a.bats": "@test \"passes\" {\n  [ 1 -lt 2 ]\n}\n@test \"fails\" {\n  [ 2 -lt 1 ]\n}\n@test \"skips\" {\n  skip \"not here\"\n}\n"})
	tr := testRun{results: testResults{}, same: map[string]string{}}
	batsTests(t.Context(), dir, tr)
	want := map[string]string{"bats:t/a.bats:passes": "pass", "bats:t/a.bats:fails": "fail", "bats:t/a.bats:skips": "skip"}
	if len(tr.results) != 3 || len(tr.same) != 3 {
		t.Fatalf("results %v, same %v", tr.results, tr.same)
	}
	for id, out := range want {
		if tr.results[id] != out {
			t.Errorf("%s = %q, want %q (all: %v)", id, tr.results[id], out, tr.results)
		}
	}
}

func FuzzBatsJudge(f *testing.F) {
	f.Add("@test \"a\" {\n  run x\n  [ \"$status\" -eq 0 ] || true\n}\n")
	f.Add("@test 'b' { skip; }\n@test c {\n if x; then :; fi\n}")
	f.Fuzz(func(t *testing.T, src string) {
		tests, err := parseBats([]byte(src))
		if err != nil {
			return
		}
		for _, bt := range tests {
			for _, fd := range judgeBats("a.bats", bt) {
				if fd.Code == "" || fd.Message == "" {
					t.Fatalf("finding without code or why: %+v", fd)
				}
			}
		}
	})
}
