package confmerge

import (
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// UnifiedDiff is the change from before to after as `git diff` shows it,
// with three lines of context; empty when they are the same.
func UnifiedDiff(name string, before, after []byte) string {
	if string(before) == string(after) {
		return ""
	}
	from := "a/" + name
	if len(before) == 0 {
		from = "/dev/null"
	}
	s, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: lines(before), B: lines(after),
		FromFile: from, ToFile: "b/" + name, Context: 3,
	})
	if err != nil {
		return err.Error()
	}
	return s
}

// lines splits text after each newline; a last line without one is
// marked as git marks it.
func lines(b []byte) []string {
	ls := strings.SplitAfter(string(b), "\n")
	if ls[len(ls)-1] == "" {
		return ls[:len(ls)-1]
	}
	ls[len(ls)-1] += "\n\\ No newline at end of file\n"
	return ls
}
