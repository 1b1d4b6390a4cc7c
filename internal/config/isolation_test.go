package config

import (
	"strings"
	"testing"
)

func TestIsolationMode(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == IsolationEnv {
				return v
			}
			return ""
		}
	}
	for _, c := range []struct{ conf, env, want, err string }{
		{"", "", IsolationOnRequest, ""},
		{"always", "", IsolationAlways, ""},
		{"always", "never", IsolationNever, ""},
		{"never", "on-request", IsolationOnRequest, ""},
		{"", "Always", "", `is "Always"`},
	} {
		got, err := Worktree{Isolation: c.conf}.IsolationMode(env(c.env))
		if got != c.want || (c.err == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("conf %q env %q: got %q, %v", c.conf, c.env, got, err)
		}
	}
	if err := (Worktree{Isolation: "sometimes"}).validateIsolation(); err == nil || !strings.Contains(err.Error(), "on-request, always or never") {
		t.Errorf("a bad configured value: %v", err)
	}
}
