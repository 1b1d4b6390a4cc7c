package perimeter

import (
	"slices"
	"testing"
)

func TestDirs(t *testing.T) {
	isDir := func(rel string) bool { return rel == "internal/parser" }
	for _, c := range []struct {
		globs []string
		want  []string
		ok    bool
	}{
		{[]string{"src/api/**", "docs/*.md"}, []string{"docs", "src/api"}, true},
		{[]string{"src/api/*.go", "src/**"}, []string{"src"}, true},
		{[]string{"internal/parser"}, []string{"internal/parser"}, true},
		{[]string{"lib/lower.sh"}, []string{"lib"}, true},
		{[]string{"a/b[0-9]/c.go"}, []string{"a"}, true},
		{[]string{"src/**", "Makefile"}, nil, false},
		{[]string{"**/*.go"}, nil, false},
		{[]string{"*.md"}, nil, false},
		{[]string{"docs/"}, []string{"docs"}, true},
		{nil, nil, false},
		{[]string{"../x/**"}, nil, false},
	} {
		got, ok := Dirs(c.globs, isDir)
		if ok != c.ok || !slices.Equal(got, c.want) {
			t.Errorf("Dirs(%q) = %q, %v; want %q, %v", c.globs, got, ok, c.want, c.ok)
		}
	}
}
