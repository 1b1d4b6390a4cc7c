package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// forgeVerification commits on ref, with git plumbing and not through the
// ledger, a copy of the commit of WP2's latest wp_verified turned into a
// pass, as a WP cheating its way past its verify would; seal is the seal
// the copy carries ("" for none). It returns the forged record id.
func forgeVerification(t *testing.T, dir, ref, id, seal string) string {
	t.Helper()
	writer := strings.TrimPrefix(ref, "refs/agentproto/ledger/")
	own := ownLedgerRef(t, dir)
	var genuine string
	for _, line := range strings.Split(must(t, dir, "git", "log", "--format=%H %s", own), "\n") {
		if strings.Contains(line, " agentproto wp_verified pipeline/demo/WP2/verify/") {
			genuine, _, _ = strings.Cut(line, " ")
			break
		}
	}
	if genuine == "" {
		t.Fatal("no verification of WP2 to copy")
	}
	env := envelope(t, dir, genuine)
	data := env["data"].(map[string]any)
	data["verdict"], data["out_of_scope"], data["findings"] = "pass", []any{}, []any{}
	env["data"], env["id"], env["writer"] = data, id, writer
	env["lamport"] = json.Number(fmtInt(maxLamport(t, dir) + 1))
	delete(env, "seal")
	if seal != "" {
		env["seal"] = seal
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(env); err != nil {
		t.Fatal(err)
	}
	args := []string{"commit-tree", genuine + "^{tree}", "-m", "agentproto wp_verified " + id + "\n\n" + b.String()}
	if tip := strings.TrimSpace(must(t, dir, "git", "for-each-ref", "--format=%(objectname)", ref)); tip != "" {
		args = append(args, "-p", tip)
	}
	forged := strings.TrimSpace(must(t, dir, "git", args...))
	must(t, dir, "git", "update-ref", ref, forged)
	return id
}

func ownLedgerRef(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, ".git", "agentproto", "writer-id"))
	if err != nil {
		t.Fatal(err)
	}
	return "refs/agentproto/ledger/" + strings.TrimSpace(string(b))
}

// envelope decodes the envelope of a ledger commit.
func envelope(t *testing.T, dir, commit string) map[string]any {
	t.Helper()
	_, body, _ := strings.Cut(must(t, dir, "git", "log", "-1", "--format=%B", commit), "\n\n")
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	var env map[string]any
	if err := dec.Decode(&env); err != nil {
		t.Fatalf("envelope of %s: %v", commit, err)
	}
	return env
}

func maxLamport(t *testing.T, dir string) int64 {
	t.Helper()
	var top int64
	for _, c := range strings.Fields(must(t, dir, "git", "log", "--format=%H", "--glob=refs/agentproto/ledger/*")) {
		if n, err := envelope(t, dir, c)["lamport"].(json.Number).Int64(); err == nil && n > top {
			top = n
		}
	}
	return top
}

func fmtInt(n int64) string { b, _ := json.Marshal(n); return string(b) }

// A WP's failing verification turned into a pass with git plumbing on the
// ledger ref is not the pipeline's: checkpoint and consolidate refuse it,
// naming the record, and ledger verify reports it. A copy carrying a
// genuine event's seal, and one on a made-up peer's ref, fare no better.
func TestForgedVerificationIsRefusedAndReported(t *testing.T) {
	// Widened to the worktree: the stray write must happen for verify to find it.
	dir := pipelineRepoConfig(t, sandboxWorktree, `{"op":"write","path":"notes.txt","content":"stray\n"}`, "lower lib/lower.sh")
	out, _, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo")
	if exitCode(err) != 1 || !strings.Contains(out, "WP2   verify     fail") {
		t.Fatalf("dispatch: %v\n%s", err, out)
	}
	for _, wp := range []string{"WP0", "WP1"} {
		must(t, dir, "git", "agentproto", "checkpoint", "demo", wp)
	}
	own := ownLedgerRef(t, dir)
	seal, _ := envelope(t, dir, own)["seal"].(string)
	if seal == "" {
		t.Fatalf("the pipeline's own event carries no seal: %v", envelope(t, dir, own))
	}
	for _, c := range []struct{ ref, id, seal, why string }{
		{own, "pipeline/demo/WP2/verify/1", "", "carries no seal"},
		{own, "pipeline/demo/WP2/verify/2", seal, "seal that does not match"},
		{"refs/agentproto/ledger/w-00000000000000aa", "pipeline/demo/WP2/verify/3", "", "not by this clone"},
	} {
		forgeVerification(t, dir, c.ref, c.id, c.seal)
		_, errOut, err := sh(t, dir, nil, "git", "agentproto", "checkpoint", "demo", "WP2")
		if exitCode(err) != 5 || !strings.Contains(errOut, c.id) || !strings.Contains(errOut, c.why) {
			t.Fatalf("checkpoint of WP2 after %s: exit %d\n%s", c.id, exitCode(err), errOut)
		}
		out, _, err := sh(t, dir, nil, "git", "agentproto", "consolidate", "demo", "--json")
		if exitCode(err) != 5 || !strings.Contains(out, `"code":"untrusted-verification"`) || !strings.Contains(out, c.id) {
			t.Fatalf("consolidate after %s: exit %d\n%s", c.id, exitCode(err), out)
		}
	}
	out, _, err = sh(t, dir, nil, "git", "agentproto", "ledger", "verify")
	if exitCode(err) != 1 || !strings.Contains(out, "unsealed: "+own) || !strings.Contains(out, "pipeline/demo/WP2/verify/1: record") ||
		!strings.Contains(out, "bad-seal: "+own) || !strings.Contains(out, "pipeline/demo/WP2/verify/2: record") {
		t.Fatalf("ledger verify: exit %d\n%s", exitCode(err), out)
	}
	// The peer's is not this clone's to judge: two findings, no more.
	if strings.Contains(out, "verify/3") || !strings.Contains(out, ", 2 findings") {
		t.Fatalf("ledger verify holds more than the two forgeries on its own ref:\n%s", out)
	}
}
