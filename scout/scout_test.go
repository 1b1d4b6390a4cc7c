package scout

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/internal/testgit"
)

const ordersGo = `package api

// Create stores an order and tells the bus.
func Create(o Order) error {
	if err := store.Put(o); err != nil {
		return err
	}
	bus.Emit("order_created", o)
	return nil
}
`

// baseRepo commits a small tree and returns the repository and commit.
func baseRepo(t *testing.T) (*gitrepo.Repo, string) {
	t.Helper()
	testgit.Isolate(t)
	dir := testgit.Init(t)
	write := func(rel, text string) {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("api/orders.go", ordersGo)
	pad := strings.Repeat("// padding line\n", 40)
	write("api/refunds.go", "package api\n\n"+pad+"func Refund(id string) error {\n\treturn payments.Reverse(id, \"refund\")\n}\n")
	testgit.Run(t, dir, "add", ".")
	testgit.Run(t, dir, "commit", "-q", "-m", "base")
	repo, err := gitrepo.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	return repo, testgit.Run(t, dir, "rev-parse", "HEAD")
}

const recon = "# Recon: orders\n\n" +
	"## C1: Create emits order_created after storing\n" +
	"`api/orders.go:9`\n" +
	"> bus.Emit(\"order_created\", o)\n\n" +
	"## C2: Refunds reverse the payment\n" +
	"`api/refunds.go:3`\n" +
	"> return payments.Reverse(id, \"refund\")\n\n" +
	"### C3: Create emits order_paid when paid\n" +
	"`api/orders.go:8`\n" +
	"> bus.Emit(\"order_paid\", o)\n\n" +
	"## C4: The order store is in the api package\n" +
	"`api/store.go:1`\n" +
	"> if err := store.Put(o); err != nil {\n" +
	">     return err\n\n" +
	"## C5: Nothing cited\n\nJust prose.\n\n" +
	"## C6: Escapes\n`../etc/passwd:1`\n> root:x:0:0:root:/root\n\n" +
	"## C7: Too short\n`api/orders.go:6`\n> return err\n"

func TestCheckMarksEachClaimFromTheBaseTree(t *testing.T) {
	repo, commit := baseRepo(t)
	r, err := Parse([]byte(recon))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Check(r, &GitSource{Repo: repo, Commit: commit})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct{ verdict, found string }{
		"C1": {Verified, "api/orders.go:8"}, // one line off: within Drift
		"C2": {Moved, "api/refunds.go:44"},  // same file, 41 lines away
		"C3": {Unverified, ""},              // invented
		"C4": {Moved, "api/orders.go:5"},    // cited file absent, quote found in another
		"C5": {Unverified, ""},              // no citation
		"C6": {Unverified, ""},              // path escapes the repository
		"C7": {Unverified, ""},              // too short to prove anything
	}
	if len(res.Claims) != len(want) {
		t.Fatalf("%d claims checked, want %d: %+v", len(res.Claims), len(want), res.Claims)
	}
	for _, c := range res.Claims {
		w := want[c.ID]
		if c.Verdict != w.verdict {
			t.Errorf("%s: verdict %s (%s), want %s", c.ID, c.Verdict, c.Reason, w.verdict)
		}
		if w.found != "" && (len(c.Citations) != 1 || c.Citations[0].Found != w.found) {
			t.Errorf("%s: found %+v, want %s", c.ID, c.Citations, w.found)
		}
		if c.Verdict == Unverified && c.Reason == "" {
			t.Errorf("%s: unverified without a reason", c.ID)
		}
	}
	if res.Verified != 1 || res.Moved != 2 || res.Unverified != 4 {
		t.Errorf("counts %d/%d/%d, want 1/2/4", res.Verified, res.Moved, res.Unverified)
	}
}

func TestParseKeepsCorrectionsApartAndRefusesDuplicates(t *testing.T) {
	doc := recon + "\n## CORRECTION 2026-12-01T10:00:00Z\n\nCreate emits order_created only on success.\n"
	r, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Corrections) != 1 || r.Corrections[0].Date != "2026-12-01T10:00:00Z" || !strings.Contains(r.Corrections[0].Text, "only on success") {
		t.Fatalf("corrections %+v", r.Corrections)
	}
	if c := r.Claim("C7"); c == nil || len(c.Citations) != 1 || len(c.Citations[0].Quote) != 1 {
		t.Fatalf("the claim before the correction lost its citation: %+v", c)
	}
	_, err = Parse([]byte("## C1: a\n## C1: b\n"))
	if err == nil || !strings.Contains(err.Error(), "C1 is already defined at line 1") {
		t.Fatalf("duplicate claim: %v", err)
	}
}

func TestRefsFindsClaimsAPlanReliesOn(t *testing.T) {
	got := Refs("Use the event (recon:C3) and RECON:c1; again recon:C3. Not arecon:C9 or recon:C12x.")
	if strings.Join(got, ",") != "C1,C3" {
		t.Fatalf("refs %v", got)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(recon))
	f.Add([]byte("## C1: x\n`a:1`\n> q\n## CORRECTION d\ntext\n"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		r, err := Parse(doc)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, c := range r.Claims {
			if seen[c.ID] {
				t.Fatalf("claim %s twice", c.ID)
			}
			seen[c.ID] = true
			for _, ct := range c.Citations {
				if ct.Line < 1 || len(ct.Quote) > MaxQuote {
					t.Fatalf("citation %+v", ct)
				}
			}
		}
	})
}
