package plans

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentproto/agentproto/gitstore/memstore"
	"github.com/agentproto/agentproto/scout"
)

// The recon's verdicts are part of a freeze's id: the same files frozen
// with other verdicts (an older binary froze none, a later checker judges
// otherwise) are a new freeze, not a collision with the earlier record;
// the same verdicts again write nothing.
func TestFreezeIDCoversTheReconVerdicts(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, Dir, "p")
	os.MkdirAll(dir, 0o755)
	for name, text := range map[string]string{
		"plan.toml":   "name = \"p\"\nbase = \"main\"\n",
		"SPEC.md":     "# Spec\n",
		"CONTRACT.md": "# Contract\n",
		ReconFile:     "## C1: a claim\n`a.go:1`\n> package a\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := Load(root, "p")
	if err != nil {
		t.Fatal(err)
	}
	store := memstore.New()
	bare, written, err := Freeze(p, store, "c0ffee", nil)
	if err != nil || !written {
		t.Fatalf("freeze without verdicts: %v written=%v", err, written)
	}
	rep := &Report{Recon: &scout.Result{Verified: 1, Claims: []scout.ClaimVerdict{{ID: "C1", Verdict: scout.Verified}}}}
	judged, written, err := Freeze(p, store, "c0ffee", rep)
	if err != nil || !written || judged.RecordID == bare.RecordID {
		t.Fatalf("freeze with verdicts: %v written=%v id %s (bare %s)", err, written, judged.RecordID, bare.RecordID)
	}
	again, written, err := Freeze(p, store, "c0ffee", rep)
	if err != nil || written || again.RecordID != judged.RecordID {
		t.Fatalf("the same freeze again: %v written=%v", err, written)
	}
}
