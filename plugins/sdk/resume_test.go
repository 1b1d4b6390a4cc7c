package sdk

import (
	"context"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/plugins/internal/proto"
)

// resuming is an adapter whose session says it can be resumed from state
// when it starts, and keeps the Resume it was started with.
type resuming struct {
	caps  []string
	state string
	err   error
	req   StartRequest
}

func (r *resuming) Info() Info { return Info{Name: "resuming", Capabilities: r.caps} }

func (r *resuming) Start(_ context.Context, req StartRequest, out Emitter) (Session, error) {
	r.req = req
	r.err = Resumable(out, r.state)
	return nopSession{}, nil
}

func startResuming(t *testing.T, r *resuming, resume string) []*proto.Event {
	t.Helper()
	srv := NewServer(r).(*server)
	if _, err := srv.StartSession(context.Background(), &proto.StartSessionRequest{Dir: t.TempDir(), Resume: resume}); err != nil {
		t.Fatal(err)
	}
	srv.log.add(&proto.Event{Kind: proto.EventKind_EVENT_KIND_EXITED})
	evs, _ := srv.log.wait(0, nil)
	return evs
}

// A resume state reaches the host as it was said, and the state a host
// starts a session with reaches the adapter.
func TestResumableStateGoesBothWays(t *testing.T) {
	r := &resuming{caps: []string{CapResume}, state: `{"turn":3,"id":"abc"}`}
	evs := startResuming(t, r, "earlier-state")
	if r.err != nil {
		t.Fatal(r.err)
	}
	if len(evs) != 2 || evs[0].Kind != proto.EventKind_EVENT_KIND_RESUMABLE || evs[0].Text != r.state {
		t.Fatalf("events %v", evs)
	}
	if r.req.Resume != "earlier-state" {
		t.Fatalf("the adapter was started with Resume %q", r.req.Resume)
	}
}

// Only an adapter that declares session_resume may say a session can be
// resumed, and a state is an id or a cursor, not a transcript.
func TestResumableIsRefusedWithoutTheCapabilityOrOverItsSize(t *testing.T) {
	for _, c := range []struct {
		r    *resuming
		want string
	}{
		{&resuming{caps: []string{CapInterrupt}, state: "x"}, "without session_resume"},
		{&resuming{caps: []string{CapResume}, state: strings.Repeat("x", MaxResumeBytes+1)}, "over the 4096"},
	} {
		evs := startResuming(t, c.r, "")
		if c.r.err == nil || !strings.Contains(c.r.err.Error(), c.want) {
			t.Errorf("error %v, want %q", c.r.err, c.want)
		}
		if len(evs) != 1 || evs[0].Kind != proto.EventKind_EVENT_KIND_EXITED {
			t.Errorf("events %v", evs)
		}
	}
	if err := Resumable(plain{}, "x"); err != nil {
		t.Errorf("a plain emitter: %v", err)
	}
}
