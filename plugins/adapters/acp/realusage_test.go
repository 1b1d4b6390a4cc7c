package acp_test

import (
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/fakemodel"
	"github.com/agentproto/agentproto/plugins/sdk"
)

// turnsSent sums the usage the provider answered the agent's turn
// requests with (streamed answers from the script or the default; not
// Gemini CLI's side requests, which its account leaves out).
func turnsSent(reqs []fakemodel.Request) (sum fakemodel.Usage, n int) {
	for _, r := range reqs {
		if r.Answered != "reply" && r.Answered != "default" {
			continue
		}
		n++
		sum.Input += r.Usage.Input
		sum.CacheCreation += r.Usage.CacheCreation
		sum.CacheRead += r.Usage.CacheRead
		sum.Output += r.Usage.Output
	}
	return sum, n
}

// What each pinned ACP agent reports of a turn's usage, against what the
// provider sent: Gemini CLI's quota is the tokens of its turn requests
// (the cached ones inside its input, as the Gemini API counts them), with
// its model; claude-code-acp and codex-acp send none, so the host records
// their turns as unknown, never as zero.
func TestRealACPUsage(t *testing.T) {
	for _, a := range append(realAgents[:len(realAgents):len(realAgents)], gemini) {
		t.Run(a.name, func(t *testing.T) {
			st := newSetup(t, a, fakemodel.Key)
			st.fake.Script(fakemodel.Reply{Text: "counted", Usage: &fakemodel.Usage{Input: 1200, CacheRead: 3000, Output: 55}})
			st.turn(t, "say counted")
			if !strings.Contains(st.rec.output(), "counted") {
				t.Fatalf("the turn did not run:\n%s", st.rec.output())
			}
			st.rec.mu.Lock()
			reports := append([]sdk.Usage(nil), st.rec.usage[st.rec.turnsRun]...)
			st.rec.mu.Unlock()
			sent, n := turnsSent(st.fake.Requests())
			if n == 0 {
				t.Fatalf("no turn request reached the provider")
			}
			if a.name != gemini.name {
				if len(reports) != 0 {
					t.Fatalf("%s now reports usage (%+v; the provider sent %+v in %d requests): check it against the provider and say so here", a.name, reports, sent, n)
				}
				return
			}
			if len(reports) != 1 {
				t.Fatalf("reports %+v, want the turn's account", reports)
			}
			want := sdk.Usage{Model: a.model, InputTokens: sent.Input + sent.CacheRead, OutputTokens: sent.Output, Final: true}
			if reports[0] != want {
				t.Fatalf("reported %+v, want %+v (the provider sent %+v in %d requests)", reports[0], want, sent, n)
			}
		})
	}
}
