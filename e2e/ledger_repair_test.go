package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A damaged tip object of this clone's ref: nothing is built on it, a
// failing reindex keeps the index, log keeps answering, and ledger repair
// puts every event back on a ref that reads whole.
func TestLedgerCorruptTipIsRepaired(t *testing.T) {
	dir := newRepo(t)
	for _, id := range []string{"a1", "a2", "a3", "a4"} {
		must(t, dir, "git", "agentproto", "ledger", "append", "--kind", "note", "--id", id, "--data", `{"id":"`+id+`"}`)
	}
	ref := strings.TrimSpace(must(t, dir, "git", "for-each-ref", "--format=%(refname)", "refs/agentproto/ledger/"))
	tip := strings.TrimSpace(must(t, dir, "git", "rev-parse", ref))
	parent := strings.TrimSpace(must(t, dir, "git", "rev-parse", ref+"~1"))
	obj := filepath.Join(dir, ".git", "objects", tip[:2], tip[2:])
	if err := os.Chmod(obj, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(obj, []byte("x\x9cnot a zlib stream at all"), 0o444); err != nil {
		t.Fatal(err)
	}

	// Nothing is built on it.
	_, errOut, err := sh(t, dir, nil, "git", "agentproto", "ledger", "append", "--kind", "note", "--id", "b1", "--data", "{}")
	if exitCode(err) != 2 || !strings.Contains(errOut, tip) || !strings.Contains(errOut, "git agentproto ledger repair") {
		t.Fatalf("append on a damaged tip: exit %d: %s", exitCode(err), errOut)
	}
	if now := strings.TrimSpace(must(t, dir, "git", "rev-parse", ref)); now != tip {
		t.Fatalf("the ref moved to %s", now)
	}
	// A reindex fails, naming the way out, and leaves the index: log goes on.
	_, errOut, err = sh(t, dir, nil, "git", "agentproto", "ledger", "reindex")
	if err == nil || !strings.Contains(errOut, "git agentproto ledger repair") {
		t.Fatalf("reindex over a damaged tip: %v: %s", err, errOut)
	}
	if n := countEvents(t, dir); n != 4 {
		t.Fatalf("log after the failed reindex has %d events, want 4", n)
	}

	out := must(t, dir, "git", "agentproto", "ledger", "repair")
	if !strings.Contains(out, "damaged: "+tip) || !strings.Contains(out, "now at "+parent) || !strings.Contains(out, "recorded again: 1 events") {
		t.Fatalf("repair said:\n%s", out)
	}
	logged := must(t, dir, "git", "agentproto", "ledger", "log", "--json")
	for _, id := range []string{"a1", "a2", "a3", "a4"} {
		if !strings.Contains(logged, `"id":"`+id+`"`) {
			t.Fatalf("%s lost by the repair:\n%s", id, logged)
		}
	}
	if n := strings.TrimSpace(must(t, dir, "git", "rev-list", "--count", ref)); n != "4" {
		t.Fatalf("the repaired ref holds %s commits, want 4", n)
	}
	must(t, dir, "git", "agentproto", "ledger", "reindex")
	must(t, dir, "git", "agentproto", "ledger", "append", "--kind", "note", "--id", "b1", "--data", "{}")
	must(t, dir, "git", "agentproto", "ledger", "verify")
	if out := must(t, dir, "git", "agentproto", "ledger", "repair"); !strings.Contains(out, "nothing to repair") {
		t.Fatalf("second repair: %s", out)
	}
}
