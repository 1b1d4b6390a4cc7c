package acp_test

import (
	"context"
	"testing"

	"github.com/agentproto/agentproto/plugins/sdk"
)

// An agent that says nothing of usage gets no report (the host records
// the turn as unknown, never as zero); one that sends usage in its
// session/prompt response has it passed on as the turn's account.
func TestUsageIsPassedOnOnlyWhenSent(t *testing.T) {
	s, rec := start(t, t.TempDir(), nil, nil)
	if err := s.Prompt(context.Background(), "say no usage here", false); err != nil {
		t.Fatal(err)
	}
	rec.waitTurn(t)
	if err := s.Prompt(context.Background(), "usage 1200 80 40000\nsay counted", false); err != nil {
		t.Fatal(err)
	}
	rec.waitTurn(t)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.usage[1]) != 0 {
		t.Errorf("a turn without usage reported %+v", rec.usage[1])
	}
	want := sdk.Usage{InputTokens: 1200, OutputTokens: 80, CachedInputTokens: 40000, Final: true}
	if got := rec.usage[2]; len(got) != 1 || got[0] != want {
		t.Errorf("turn 2 reported %+v, want %+v", got, want)
	}
}
