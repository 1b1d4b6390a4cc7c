package host

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/plugins/internal/proto"
	"github.com/agentproto/agentproto/plugins/sdk"
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
	caps := fromWire(&proto.Event{Kind: proto.EventKind_EVENT_KIND_CAPABILITIES, Capabilities: []string{"session_interrupt", "session_resume"}})
	if caps.Kind != CapabilitiesDeclared || caps.Kind.String() != "capabilities" || !reflect.DeepEqual(caps.Capabilities, []string{"session_interrupt", "session_resume"}) {
		t.Errorf("a capabilities event became %+v (%s)", caps, caps.Kind)
	}
	use := fromWire(&proto.Event{Kind: proto.EventKind_EVENT_KIND_USAGE, Usage: &proto.Usage{Model: "m", InputTokens: 1, CachedInputTokens: 2,
		CacheCreationTokens: 3, OutputTokens: 4, CostUsd: 0.5, HasCost: true, Final: true}})
	wantUse := sdk.Usage{Model: "m", InputTokens: 1, CachedInputTokens: 2, CacheCreationTokens: 3, OutputTokens: 4, CostUSD: 0.5, HasCost: true, Final: true}
	if use.Kind != UsageReported || use.Kind.String() != "usage" || use.Usage == nil || *use.Usage != wantUse {
		t.Errorf("a usage event became %+v (%s): %+v", use, use.Kind, use.Usage)
	}
	if fromWire(&proto.Event{Kind: proto.EventKind_EVENT_KIND_OUTPUT}).Usage != nil {
		t.Error("an event without usage got one")
	}
}

// The host's Event is its own type, not the wire's under another name:
// what sessions and tests hold does not change with the protocol.
func TestEventIsTheHostsOwn(t *testing.T) {
	if p := reflect.TypeOf(Event{}).PkgPath(); p != reflect.TypeOf(Client{}).PkgPath() {
		t.Fatalf("host.Event is declared in %s", p)
	}
}

// The host gets what it needs of the config from its caller: none of its
// files reads internal/config.
func TestHostReadsNoConfig(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if strings.HasSuffix(strings.Trim(imp.Path.Value, `"`), "/internal/config") {
				t.Errorf("%s imports %s", name, imp.Path.Value)
			}
		}
	}
	if len(files) < 5 {
		t.Fatalf("found only %v", files)
	}
}
