package sdk

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/plugins/internal/proto"
)

// declaring is an adapter whose session declares caps when it starts.
type declaring struct {
	caps []string
	err  error
}

func (d *declaring) Info() Info {
	return Info{Name: "declaring", Capabilities: []string{CapMessageInjection, CapInterrupt, CapResume, CapTermination}}
}

func (d *declaring) Start(_ context.Context, _ StartRequest, out Emitter) (Session, error) {
	d.err = DeclareCapabilities(out, d.caps)
	return nopSession{}, nil
}

type nopSession struct{}

func (nopSession) Prompt(context.Context, string, bool) error { return nil }
func (nopSession) Terminate(context.Context) error            { return nil }

func started(t *testing.T, caps []string) (*declaring, []*proto.Event) {
	t.Helper()
	a := &declaring{caps: caps}
	srv := NewServer(a).(*server)
	if _, err := srv.StartSession(context.Background(), &proto.StartSessionRequest{Dir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	srv.log.add(&proto.Event{Kind: proto.EventKind_EVENT_KIND_EXITED})
	evs, _ := srv.log.wait(0, nil)
	return a, evs
}

// A session's declaration reaches the event stream in the closed set's
// order, each capability once.
func TestDeclaredCapabilitiesAreSentInCanonicalOrder(t *testing.T) {
	a, evs := started(t, []string{CapResume, CapInterrupt, CapResume})
	if a.err != nil {
		t.Fatal(a.err)
	}
	if len(evs) != 2 || evs[0].Kind != proto.EventKind_EVENT_KIND_CAPABILITIES {
		t.Fatalf("events %v", evs)
	}
	if want := []string{CapInterrupt, CapResume}; !reflect.DeepEqual(evs[0].Capabilities, want) {
		t.Fatalf("declared %v, want %v", evs[0].Capabilities, want)
	}
	// Declaring none is a declaration too: the session has nothing.
	if _, evs := started(t, nil); evs[0].Kind != proto.EventKind_EVENT_KIND_CAPABILITIES || len(evs[0].Capabilities) != 0 {
		t.Fatalf("an empty declaration: %v", evs)
	}
}

// A session never declares more than its adapter's Info, nor a name
// outside the closed set: the adapter gets an error and nothing is sent.
func TestDeclarationBeyondTheBoundIsRefused(t *testing.T) {
	for _, c := range []struct {
		caps []string
		want string
	}{
		{[]string{CapInterrupt, CapStateFork}, "session_state_fork is beyond what the adapter declares"},
		{[]string{"session_teleport"}, `"session_teleport" is not in the closed set`},
	} {
		a, evs := started(t, c.caps)
		if a.err == nil || !strings.Contains(a.err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.caps, a.err, c.want)
		}
		if len(evs) != 1 || evs[0].Kind != proto.EventKind_EVENT_KIND_EXITED {
			t.Errorf("%v: events %v", c.caps, evs)
		}
	}
}

// An Emitter that cannot take a declaration ignores it.
func TestDeclarationToAPlainEmitterIsIgnored(t *testing.T) {
	if err := DeclareCapabilities(plain{}, []string{CapInterrupt}); err != nil {
		t.Fatal(err)
	}
}

type plain struct{}

func (plain) Output([]byte)        {}
func (plain) TurnStarted()         {}
func (plain) TurnEnded()           {}
func (plain) Error(string, string) {}
func (plain) Exited(int)           {}
