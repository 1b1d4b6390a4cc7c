package pipeline

import (
	"path"
	"reflect"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/judge"
)

func TestReportFindings(t *testing.T) {
	r := &Report{Files: []string{"./lib/a.sh", "lib/ghost.sh", "../up", "/abs", "lib/../lib/b.sh"},
		ExitCodes: []ExitCode{{Command: "sh  test.sh", ExitCode: 0}, {Command: "go test ./...", ExitCode: 0}}}
	got := reportFindings(r, []string{"lib/a.sh", "lib/b.sh", "lib/c.sh", "notes.txt"}, []string{"notes.txt"}, judge.Gate{Command: "sh test.sh", ExitCode: 2})
	want := []string{
		`report-unchanged: the report lists lib/ghost.sh, which did not change`,
		`report-path: the report lists "../up", which is not a path inside the repository`,
		`report-path: the report lists "/abs", which is not a path inside the repository`,
		`report-unlisted: lib/c.sh changed but the report does not list it`,
		`report-exit-code: the report says "sh  test.sh" exited 0; run again here it exited 2`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// A report that agrees with the disk has nothing to say.
	r = &Report{Files: []string{"lib/a.sh"}, ExitCodes: []ExitCode{{Command: "sh test.sh", ExitCode: 0}}}
	if got := reportFindings(r, []string{"lib/a.sh"}, nil, judge.Gate{Command: "sh test.sh"}); len(got) != 0 {
		t.Fatalf("honest report: %v", got)
	}
}

// FuzzReportPath: an accepted report path is clean, relative and inside
// the repository.
func FuzzReportPath(f *testing.F) {
	for _, s := range []string{"lib/a.sh", "./a", "../a", "/a", "a/../../b", "a//b/", ".", "a\x00b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		c, ok := reportPath(p)
		if !ok {
			return
		}
		if c != path.Clean(c) || strings.HasPrefix(c, "/") || c == ".." || strings.HasPrefix(c, "../") || c == "." || strings.ContainsRune(c, 0) {
			t.Fatalf("reportPath(%q) = %q", p, c)
		}
	})
}
