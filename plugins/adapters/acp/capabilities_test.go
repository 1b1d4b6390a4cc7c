package acp

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/agentproto/agentproto/plugins/sdk"
)

// What an agent's initialize says becomes the session's capabilities:
// load or resume is session_resume, fork is session_state_fork, the rest
// of ACP is no capability of agentproto, and the baseline is always there.
func TestSessionCapabilitiesFromInitialize(t *testing.T) {
	const inj, intr, res, fork, term = sdk.CapMessageInjection, sdk.CapInterrupt, sdk.CapResume, sdk.CapStateFork, sdk.CapTermination
	for _, c := range []struct {
		agentCapabilities string
		want              []string
	}{
		{`{}`, []string{inj, intr, term}},
		{`{"loadSession":true}`, []string{inj, intr, res, term}},
		{`{"sessionCapabilities":{"resume":{}}}`, []string{inj, intr, res, term}},
		{`{"sessionCapabilities":{"fork":{}}}`, []string{inj, intr, fork, term}},
		{`{"loadSession":false,"sessionCapabilities":{"list":{},"close":{}},"promptCapabilities":{"image":true},"mcpCapabilities":{"http":true}}`, []string{inj, intr, term}},
		{`{"loadSession":true,"sessionCapabilities":{"fork":{},"list":{},"resume":{}}}`, []string{inj, intr, res, fork, term}},
		// A capability an agent spells as null is not offered.
		{`{"sessionCapabilities":{"fork":null,"resume":null}}`, []string{inj, intr, term}},
	} {
		var ac acpsdk.AgentCapabilities
		if err := json.Unmarshal([]byte(c.agentCapabilities), &ac); err != nil {
			t.Fatal(err)
		}
		if got := sessionCapabilities(ac); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", c.agentCapabilities, got, c.want)
		}
	}
}

// Info is the upper bound: every set a session can declare is within it,
// and it holds nothing no agent could give.
func TestInfoIsTheUpperBoundOfEverySession(t *testing.T) {
	all := acpsdk.AgentCapabilities{LoadSession: true, SessionCapabilities: acpsdk.SessionCapabilities{
		Fork: &acpsdk.SessionForkCapabilities{}, Resume: &acpsdk.SessionResumeCapabilities{}}}
	if got, bound := sessionCapabilities(all), (Adapter{}).Info().Capabilities; !reflect.DeepEqual(got, bound) {
		t.Fatalf("the richest agent gives %v; Info declares %v", got, bound)
	}
}

// Whatever an agent answers (it is untrusted input), the session has the
// baseline, nothing beyond Info, and resume or fork exactly when offered.
func FuzzSessionCapabilities(f *testing.F) {
	f.Add([]byte(`{"loadSession":true,"sessionCapabilities":{"fork":{},"list":{},"resume":{}}}`))
	f.Add([]byte(`{"sessionCapabilities":{"resume":null}}`))
	f.Add([]byte(`{"loadSession":"yes"}`))
	bound := (Adapter{}).Info().Capabilities
	f.Fuzz(func(t *testing.T, b []byte) {
		var ac acpsdk.AgentCapabilities
		if json.Unmarshal(b, &ac) != nil {
			return
		}
		got := sessionCapabilities(ac)
		for _, c := range baseline {
			if !slices.Contains(got, c) {
				t.Fatalf("%s: %v lacks %s", b, got, c)
			}
		}
		for _, c := range got {
			if !slices.Contains(bound, c) {
				t.Fatalf("%s: %s is beyond Info", b, c)
			}
		}
		if slices.Contains(got, sdk.CapResume) != (ac.LoadSession || ac.SessionCapabilities.Resume != nil) ||
			slices.Contains(got, sdk.CapStateFork) != (ac.SessionCapabilities.Fork != nil) {
			t.Fatalf("%s: %v", b, got)
		}
	})
}
