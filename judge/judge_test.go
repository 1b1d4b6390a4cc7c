package judge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

func writeTree(t testing.TB, files map[string]string) string {
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func codes(fs []Finding) string {
	var cs []string
	for _, f := range fs {
		cs = append(cs, f.Code)
	}
	return strings.Join(cs, " ")
}

func TestGoTestAssertsThroughWhatRuns(t *testing.T) {
	base := writeTree(t, map[string]string{"go.mod": "module m\n"})
	cases := []struct {
		name, body string
		lost       bool // the test cannot fail
	}{
		{"direct", `if Add(1, 2) != 3 { t.Fatal("no") }`, false},
		{"helper taking testing.TB", `equal(t, Add(1, 2), 3)`, false},
		{"subtest", `t.Run("x", func(t *testing.T) { if Add(1, 2) != 3 { t.Error("no") } })`, false},
		{"called callback", `c := func() { t.Fatal("no") }; if Add(1, 2) != 3 { c() }`, false},
		{"callback never called", `c := func() { t.Fatal("no") }; _ = c`, true},
		{"empty table", `tests := []int{}; for range tests { t.Fatal("no") }`, true},
		{"condition never true", `got := Add(1, 2); if got != got { t.Fatal("no") }`, true},
		{"only logs", `t.Logf("%d", Add(1, 2))`, true},
		{"err.Error is no assertion", `var err error; _ = err.Error`, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			head := writeTree(t, map[string]string{
				"go.mod":       "module m\n",
				"add.go":       "package m\n\nfunc Add(a, b int) int { return a + b }\n",
				"add_test.go":  "package m\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\t" + c.body + "\n}\n",
				"help_test.go": "package m\n\nimport \"testing\"\n\nfunc equal(tb testing.TB, got, want int) {\n\tif got != want {\n\t\ttb.Errorf(\"got %d\", got)\n\t}\n}\n",
			})
			got := strings.Contains(codes(goFindings(base, head, []string{"add_test.go"})), "test-no-assertion")
			if got != c.lost {
				t.Errorf("test-no-assertion = %v, want %v", got, c.lost)
			}
		})
	}
}

func TestGoJudgesOnlyChangedFunctions(t *testing.T) {
	old := "package m\n\nimport \"strconv\"\n\nfunc P(s string) int {\n\tn, _ := strconv.Atoi(s)\n\treturn n\n}\n"
	base := writeTree(t, map[string]string{"p.go": old})
	head := writeTree(t, map[string]string{"p.go": old + "\nfunc Q() int { return 1 }\n"})
	if fs := goFindings(base, head, []string{"p.go"}); len(fs) != 0 {
		t.Fatalf("an unchanged function is judged: %v", fs)
	}
	head = writeTree(t, map[string]string{"p.go": strings.Replace(old, "return n", "return n + 1", 1)})
	if c := codes(goFindings(base, head, []string{"p.go"})); c != "error-swallowed" {
		t.Fatalf("changed function with a thrown-away error: %q", c)
	}
}

func TestCompareTestsKeepsRenamedTests(t *testing.T) {
	base := testRun{results: testResults{"go:m.TestA": "pass", "sh:a_test.sh": "pass", "go:m.TestB": "pass"}, same: map[string]string{"h1": "sh:a_test.sh"}}
	head := testRun{gate: Gate{Command: "true"}, results: testResults{"go:m.TestA": "skip", "sh:b_test.sh": "pass", "go:m.TestC": "fail"}, same: map[string]string{"h1": "sh:b_test.sh"}}
	got := codes(compareTests(base, head, nil))
	if got != "test-skipped test-lost gate-masks-failure" { // TestA skipped, TestB lost, a_test.sh renamed
		t.Fatalf("findings %q", got)
	}
}

// FuzzGoJudge: any Go file a change brings is parsed and judged without
// a panic. The trees are held in memory: the disk would cost more than
// the judging.
func FuzzGoJudge(f *testing.F) {
	f.Add("package m\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) { for range []int{} { t.Fatal() } }\n")
	f.Add("package m\n\nfunc F(n int) (int, error) { if err != nil { return 0, nil }; if n == 4 { return 16 }; panic(\"todo\") }\n")
	f.Add("package m\nfunc TestMain(m *testing.M) { m.Run(); os.Exit(0) }")
	base := fstest.MapFS{}
	f.Fuzz(func(t *testing.T, src string) {
		head := fstest.MapFS{
			"a.go":      &fstest.MapFile{Data: []byte(src)},
			"a_test.go": &fstest.MapFile{Data: []byte(src)},
		}
		for _, fd := range goFindingsFS(base, head, []string{"a.go", "a_test.go"}) {
			if fd.Severity != "error" || fd.Code == "" || fd.Message == "" {
				t.Fatalf("finding without code, severity or why: %+v", fd)
			}
		}
	})
}

func TestMutationSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on mutants; skipped in -short mode")
	}
	base := writeTree(t, map[string]string{"go.mod": "module m\n\ngo 1.22\n"})
	head := writeTree(t, map[string]string{
		"go.mod":    "module m\n\ngo 1.22\n",
		"m.go":      "package m\n\nfunc Tested(n int) int {\n\tif n < 0 {\n\t\treturn -n\n\t}\n\treturn n\n}\n\nfunc Untested(n int) int {\n\tif n > 10 {\n\t\treturn 10\n\t}\n\treturn n\n}\n",
		"m_test.go": "package m\n\nimport \"testing\"\n\nfunc TestM(t *testing.T) {\n\tif Tested(-2) != 2 || Tested(3) != 3 {\n\t\tt.Fatal(\"Tested\")\n\t}\n\t_ = Untested(3)\n}\n",
	})
	orig, err := os.ReadFile(filepath.Join(head, "m.go"))
	if err != nil {
		t.Fatal(err)
	}
	fs, used := mutationSmoke(t.Context(), base, head, []string{"m.go"}, time.Minute)
	if c := codes(fs); c != "untested" || !strings.Contains(fs[0].Message, "Untested") {
		t.Fatalf("findings %q %+v", c, fs)
	}
	if used <= 0 {
		t.Fatal("no mutation time reported")
	}
	if now, _ := os.ReadFile(filepath.Join(head, "m.go")); string(now) != string(orig) {
		t.Fatal("the mutated file was not restored")
	}
}
