package sdk

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentproto/agentproto/plugins/internal/proto"
)

// CapabilityDeclarer is the side of an Emitter that takes a session's own
// capabilities. The Emitter Serve gives an adapter has it; an Emitter of a
// test may have it too.
type CapabilityDeclarer interface {
	Capabilities(caps []string) error
}

// DeclareCapabilities tells the host which capabilities this session has,
// once the adapter knows: an adapter that drives many kinds of agent
// learns it from the agent (the acp adapter, from the agent's initialize
// answer). Info.Capabilities is then the upper bound, what a session of
// the adapter may have; the session's list is what it has, and a later
// declaration replaces an earlier one. A session that declares nothing
// has Info.Capabilities.
//
// caps must be in the closed set and within Info.Capabilities; they are
// sent in the order of Capabilities, each once. An Emitter without
// CapabilityDeclarer ignores the declaration.
func DeclareCapabilities(out Emitter, caps []string) error {
	for _, c := range caps {
		if !ValidCapability(c) {
			return fmt.Errorf("capability %q is not in the closed set (%s)", c, strings.Join(Capabilities, ", "))
		}
	}
	d, ok := out.(CapabilityDeclarer)
	if !ok {
		return nil
	}
	return d.Capabilities(CanonicalCapabilities(caps))
}

// Capabilities sends a session's declaration, refusing one beyond what
// the adapter's Info declares.
func (e emitter) Capabilities(caps []string) error {
	for _, c := range caps {
		if !slices.Contains(e.bound, c) {
			return fmt.Errorf("capability %s is beyond what the adapter declares (%s)", c, strings.Join(e.bound, ", "))
		}
	}
	e.log.add(&proto.Event{Kind: proto.EventKind_EVENT_KIND_CAPABILITIES, Capabilities: slices.Clone(caps)})
	return nil
}
