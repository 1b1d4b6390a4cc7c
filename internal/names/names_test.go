package names

import (
	"regexp"
	"testing"
)

// The patterns these functions stand for, as the callers used them.
var (
	slugRE   = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)
	writerRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{3,63}$`)
	wpRE     = regexp.MustCompile(`^WP[0-9]{1,3}$`)
)

// same fails when a function and its pattern disagree on s.
func same(t *testing.T, s string) {
	t.Helper()
	if got, want := Dashed(s, 1, 63), slugRE.MatchString(s); got != want {
		t.Errorf("Dashed(%q, 1, 63) = %v, the pattern says %v", s, got, want)
	}
	if got, want := Dashed(s, 4, 64), writerRE.MatchString(s); got != want {
		t.Errorf("Dashed(%q, 4, 64) = %v, the pattern says %v", s, got, want)
	}
	if got, want := WP(s), wpRE.MatchString(s); got != want {
		t.Errorf("WP(%q) = %v, the pattern says %v", s, got, want)
	}
}

func TestNamesMatchTheirPatterns(t *testing.T) {
	long := "a123456789b123456789c123456789d123456789e123456789f123456789g12"
	for _, s := range []string{
		"", "a", "-", "-a", "a-", "a--b", "plan-1", "Plan", "plan_1", "plan.1", "plän",
		"abc", "abcd", "w-0f3a", "w-0F3A", "abc\n", "abc\x00", " abc",
		long, long + "3", long + "34", long + "345",
		"WP", "WP0", "WP12", "WP123", "WP1234", "wp1", "WPa", "WP-1", "WP1\n", "WP１",
	} {
		same(t, s)
	}
}

func FuzzNamesMatchTheirPatterns(f *testing.F) {
	for _, s := range []string{"plan-1", "WP12", "w-0f3a9", "-x", "a\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { same(t, s) })
}
