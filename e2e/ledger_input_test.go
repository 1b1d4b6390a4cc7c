package e2e

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// Input the ledger would otherwise change without a word, or hold whole in
// memory, is refused with one error naming the line and the problem, and
// nothing is written.
func TestLedgerRefusesOddAndOversizedInput(t *testing.T) {
	dir := newRepo(t)
	must(t, dir, "git", "agentproto", "ledger", "append", "--kind", "note", "--id", "first", "--data", "{}")
	tip := must(t, dir, "git", "for-each-ref", "refs/agentproto/ledger/")
	big := strings.Repeat("x", 2<<20)
	for _, c := range []struct {
		name  string
		args  []string
		stdin []byte
		want  string
	}{
		{"duplicate key", []string{"--kind", "note", "--id", "d1", "--data", `{"a":1,"a":2}`}, nil, `data has the key "a" twice, at $`},
		{"nested duplicate key", []string{"--kind", "note", "--id", "d2", "--data", `{"x":[{"b":1,"b":1}]}`}, nil, `data has the key "b" twice, at $.x[0]`},
		{"invalid UTF-8", []string{"--kind", "note", "--id", "u1", "--data", "{\"t\":\"a\xffb\"}"}, nil, "data is not valid UTF-8 at byte 7"},
		{"right-to-left override in an id", []string{"--kind", "note", "--id", "ab\u202ecd", "--data", "{}"}, nil, "invisible or bidirectional character (U+202E)"},
		{"zero-width space in an id", []string{"--kind", "note", "--id", "ab\u200bcd", "--data", "{}"}, nil, "(U+200B)"},
		{"duplicate key on a batch line", []string{"--batch"}, []byte("{\"kind\":\"note\",\"id\":\"ok\"}\n{\"kind\":\"note\",\"kind\":\"x.y\",\"id\":\"z\"}\n"), `batch line 2: the line has the key "kind" twice`},
		{"a 2 MiB line", []string{"--batch"}, []byte("{\"kind\":\"note\",\"id\":\"ok\"}\n{\"kind\":\"note\",\"id\":\"big\",\"data\":{\"t\":\"" + big + "\"}}\n"), "batch line 2 is longer than"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, err := sh(t, dir, c.stdin, "git", append([]string{"agentproto", "ledger", "append"}, c.args...)...)
			if exitCode(err) != 2 || !strings.Contains(errOut, c.want) {
				t.Fatalf("exit %d, want 2 with %q\nstdout: %s\nstderr: %s", exitCode(err), c.want, out, errOut)
			}
			if strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
				t.Errorf("more than one line of error: %s", errOut)
			}
			if now := must(t, dir, "git", "for-each-ref", "refs/agentproto/ledger/"); now != tip {
				t.Fatalf("the ledger moved: %s -> %s", tip, now)
			}
		})
	}
}

// A batch bigger than the cap fails at the line that crossed it, before it
// has read the rest: 600 lines of 1 MiB stop near line 64.
func TestLedgerBatchCapNamesTheLine(t *testing.T) {
	dir := newRepo(t)
	var in bytes.Buffer
	data := strings.Repeat("y", 1<<20-32)
	for i := 0; i < 600; i++ {
		fmt.Fprintf(&in, "{\"kind\":\"note\",\"id\":\"n%d\",\"data\":{\"t\":%q}}\n", i, data)
	}
	_, errOut, err := sh(t, dir, in.Bytes(), "git", "agentproto", "ledger", "append", "--batch")
	if exitCode(err) != 2 || !strings.Contains(errOut, "batch line 64: the batch passes 64 MiB; split it") {
		t.Fatalf("exit %d: %s", exitCode(err), errOut)
	}
	if refs := must(t, dir, "git", "for-each-ref", "refs/agentproto/ledger/"); refs != "" {
		t.Fatalf("something was written: %s", refs)
	}
}
