package daemon

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentproto/agentproto/plugins/host"
	"github.com/agentproto/agentproto/plugins/sdk"
	"github.com/agentproto/agentproto/sessions"
)

// A session's declaration replaces what its adapter declared, within that
// bound only: a plugin cannot grant itself a capability its adapter does
// not declare, nor one outside the closed set. The record is saved at once,
// with no transition.
func TestApplyCapabilitiesDeclared(t *testing.T) {
	bound := []string{sdk.CapMessageInjection, sdk.CapInterrupt, sdk.CapResume, sdk.CapTermination}
	r := &sessions.Record{State: sessions.StateRunning, Capabilities: bound, AdapterCapabilities: bound, CapabilitiesFrom: sessions.CapabilitiesFromAdapter}
	var tn turn
	noTail := func() string { return "" }
	e := &host.Event{Seq: 3, Kind: host.CapabilitiesDeclared,
		Capabilities: []string{sdk.CapResume, sdk.CapMessageInjection, sdk.CapStateFork, "session_teleport"}}
	eff := apply(r, &tn, e, time.Now(), noTail)
	if !eff.save || eff.to != "" {
		t.Fatalf("effect %+v", eff)
	}
	if want := []string{sdk.CapMessageInjection, sdk.CapResume}; !slices.Equal(r.Capabilities, want) || r.CapabilitiesFrom != sessions.CapabilitiesFromSession {
		t.Fatalf("capabilities %v from %q, want %v from the session", r.Capabilities, r.CapabilitiesFrom, want)
	}
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], `["session_state_fork" "session_teleport"], beyond what its adapter declares`) {
		t.Fatalf("warnings %q", r.Warnings)
	}
	if !slices.Equal(r.AdapterCapabilities, bound) {
		t.Fatalf("the bound changed: %v", r.AdapterCapabilities)
	}
	// A later declaration replaces the earlier one, down to nothing.
	apply(r, &tn, &host.Event{Seq: 4, Kind: host.CapabilitiesDeclared}, time.Now(), noTail)
	if r.Capabilities == nil || len(r.Capabilities) != 0 || r.CapabilitiesFrom != sessions.CapabilitiesFromSession {
		t.Fatalf("after an empty declaration: %v from %q", r.Capabilities, r.CapabilitiesFrom)
	}
}
