package main

import (
	"slices"
	"testing"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/sessions"
)

// The CLI names the owner of the daemon's kinds from sessions.DaemonKinds,
// without linking the daemon; this binary links it, so the list is
// checked here against what the daemon declares.
func TestDaemonKindsAreTheDaemons(t *testing.T) {
	declared := gitstore.DeclaredBy(sessions.DaemonOwner)
	if len(declared) == 0 {
		t.Fatal("the daemon declares no kinds here: is it still linked?")
	}
	listed := slices.Sorted(slices.Values(sessions.DaemonKinds))
	if !slices.Equal(declared, listed) {
		t.Fatalf("sessions.DaemonKinds = %v, the daemon declares %v", listed, declared)
	}
}
