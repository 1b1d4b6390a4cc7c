package host

import (
	"testing"

	"github.com/agentproto/agentproto/plugins/internal/proto"
)

// Every kind the protocol can send has a host kind: a kind added to the
// protocol and not here would reach sessions as no kind at all.
func TestEveryWireKindConverts(t *testing.T) {
	for n, name := range proto.EventKind_name {
		k := proto.EventKind(n)
		if k == proto.EventKind_EVENT_KIND_UNSPECIFIED {
			continue
		}
		got := fromWire(&proto.Event{Kind: k})
		if got.Kind == 0 {
			t.Errorf("%s has no host kind", name)
		}
	}
	seen := map[EventKind]bool{}
	for _, k := range wireKinds {
		if seen[k] {
			t.Errorf("two wire kinds map to %v", k)
		}
		seen[k] = true
	}
}

func TestFromWireKeepsEveryField(t *testing.T) {
	in := &proto.Event{Seq: 7, Kind: proto.EventKind_EVENT_KIND_ERROR, Data: []byte("d"), Text: "t", ExitCode: 3, Fault: "provider_auth", UnixNanos: 11}
	got := fromWire(in)
	want := Event{Seq: 7, Kind: Error, Data: []byte("d"), Text: "t", ExitCode: 3, Fault: "provider_auth", UnixNanos: 11}
	if got.Seq != want.Seq || got.Kind != want.Kind || string(got.Data) != "d" || got.Text != want.Text ||
		got.ExitCode != want.ExitCode || got.Fault != want.Fault || got.UnixNanos != want.UnixNanos {
		t.Errorf("fromWire(%v) = %+v, want %+v", in, got, want)
	}
	if got.Kind.String() != "error" || EventKind(99).String() != "kind(99)" {
		t.Errorf("kind names: %q %q", got.Kind, EventKind(99))
	}
}
