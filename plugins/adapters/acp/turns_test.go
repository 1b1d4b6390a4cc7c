package acp_test

import (
	"strings"
	"testing"
)

// A prompt sent as soon as a turn has failed is answered, even by an agent
// that answers the failure before its turn has ended and loses a prompt
// that arrives in between (the fake agent plays codex-acp 0.16.0, which
// did so under load after a 429: the next turn never ended).
func TestAPromptRightAfterAFailedTurnIsAnswered(t *testing.T) {
	s, rec := start(t, t.TempDir(), nil, nil)
	turn(t, s, rec, "failearly 300 API Error: 429 rate_limit_error")
	if len(rec.faults) != 1 {
		t.Fatalf("faults %v, want one (errors %q)", rec.faults, rec.errors)
	}
	turn(t, s, rec, "say after")
	if !strings.Contains(rec.output(), "after\n") {
		t.Fatalf("the turn after the failure did not run:\n%s", rec.output())
	}
}
