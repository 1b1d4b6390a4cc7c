package peers

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestParseClaimRecordRejectsBadRecords(t *testing.T) {
	good := `{"goal":"g","todo":"t","agent":"alice","lease_until":"2026-01-02T03:04:05Z","writer":"w-1","state":"held"}`
	if r, err := ParseClaimRecord([]byte(good)); err != nil || r.Agent != "alice" {
		t.Fatalf("%v %v", r, err)
	}
	for name, bad := range map[string]string{
		"unknown field": strings.Replace(good, `"state"`, `"extra":1,"state"`, 1),
		"bad state":     strings.Replace(good, `"held"`, `"owned"`, 1),
		"bad agent":     strings.Replace(good, `"alice"`, `"../x"`, 1),
		"bad time":      strings.Replace(good, `2026-01-02T03:04:05Z`, `tomorrow`, 1),
		"trailing":      good + `{}`,
		"not a ref":     strings.Replace(good, `"todo":"t"`, `"todo":"a..b"`, 1),
		"lock":          strings.Replace(good, `"todo":"t"`, `"todo":"t.lock"`, 1),
		"too big":       `{"goal":"` + strings.Repeat("g", maxClaimRecord) + `"}`,
	} {
		if _, err := ParseClaimRecord([]byte(bad)); err == nil {
			t.Errorf("%s: accepted %s", name, bad)
		}
	}
}

func FuzzParseClaimRecord(f *testing.F) {
	f.Add([]byte(`{"goal":"g","todo":"t","agent":"alice","lease_until":"2026-01-02T03:04:05Z","writer":"w-1","state":"held"}`))
	f.Add([]byte(`{"state":"released"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseClaimRecord(b)
		if err != nil {
			return
		}
		// Whatever is accepted names a valid ref and survives a round trip.
		for _, n := range []string{r.Goal, r.Todo, r.Agent, r.Writer} {
			if ValidateName("name", n) != nil {
				t.Fatalf("accepted name %q", n)
			}
		}
		if ref := ClaimRef(r.Goal, r.Todo); strings.Contains(ref, "..") || strings.HasSuffix(ref, ".lock") || strings.HasSuffix(ref, ".") {
			t.Fatalf("ref %s", ClaimRef(r.Goal, r.Todo))
		}
		out, _ := json.Marshal(r)
		if r2, err := ParseClaimRecord(out); err != nil || *r2 != *r {
			t.Fatalf("round trip: %v %v", r2, err)
		}
	})
}

func TestLeaseEndNeverShorterThanAsked(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 500_000_000, time.UTC)
	if got := leaseEnd(at, time.Second); got != "2026-01-02T03:04:07Z" {
		t.Fatalf("half a second in: %s", got)
	}
	if got := leaseEnd(at.Truncate(time.Second), time.Second); got != "2026-01-02T03:04:06Z" {
		t.Fatalf("on the second: %s", got)
	}
}
