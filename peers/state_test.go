package peers

import (
	"testing"
	"time"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/gitstore/memstore"
)

// The peer commands record typed events and Read folds them back; the data
// keeps the shape earlier versions wrote, so a replayed command is still
// the same record.
func TestPeerEventsRoundTrip(t *testing.T) {
	store := memstore.New()
	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s := &Service{Ledger: store, Now: func() time.Time { clock = clock.Add(time.Second); return clock }}
	for _, p := range []Peer{{Agent: "a", Adapter: "exec"}, {Agent: "sup", Adapter: "exec"}} {
		if _, err := s.Register(p); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.NewGoal("g1", "Ship it"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddTodo("g1", "t1", "first"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Configure("g1", "sup", []string{"a"}, false, true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Claim("g1", "t1", "a", "a", time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := s.SetStatus(Status{Goal: "g1", Agent: "a", State: "working", NextAction: "test"}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddEvidence(Evidence{Goal: "g1", Agent: "a", Ref: "commit:abc", Summary: "tests pass"}); err != nil {
		t.Fatal(err)
	}
	st, err := Read(store)
	if err != nil {
		t.Fatal(err)
	}
	g := st.Goals["g1"]
	if g == nil || g.Title != "Ship it" || g.Todos["t1"] != "first" || g.Supervisor == nil || g.Supervisor.SupervisorAgent != "sup" {
		t.Fatalf("goal = %+v", g)
	}
	if c, ok := st.Claimed("g1", "t1", clock); !ok || c.Agent != "a" {
		t.Fatalf("claim = %+v, %v", c, ok)
	}
	if got := st.Status["g1"]["a"]; got.State != "working" || got.Time == "" {
		t.Fatalf("status = %+v", got)
	}
	if ev := st.Evidence["g1"]; len(ev) != 1 || ev[0].Ref != "commit:abc" || ev[0].Time == "" {
		t.Fatalf("evidence = %+v", ev)
	}
	if st.LastSeen["a"] == "" || st.Peers["sup"] == nil {
		t.Fatalf("peers = %+v, last seen %v", st.Peers, st.LastSeen)
	}
	if rel, err := s.Release("g1", "t1", "a", "a"); err != nil || rel.Goal != "g1" || rel.Todo != "t1" || rel.Agent != "a" {
		t.Fatalf("release = %+v, %v", rel, err)
	}
	if p, err := s.Peer("a"); err != nil || p.Agent != "a" {
		t.Fatalf("peer = %+v, %v", p, err)
	}
	if _, err := s.Peer("nobody"); err == nil {
		t.Fatal("an unregistered peer must be an error")
	}
	if st, _ = Read(store); len(st.Claims["g1"]) != 0 {
		t.Fatalf("claims after release = %+v", st.Claims["g1"])
	}
	for id, want := range map[string]string{
		"goal/g1":         `{"id":"g1","title":"Ship it"}`,
		"goal/g1/todo/t1": `{"goal":"g1","title":"first","todo":"t1"}`,
	} {
		e, _, err := store.Get(id)
		if err != nil || string(e.Data) != want {
			t.Errorf("%s holds %s (%v), want %s", id, e.Data, err, want)
		}
	}
	var configured string
	for e, err := range store.Events(gitstore.Query{Kinds: []string{KindGoalConfigured}}) {
		if err != nil {
			t.Fatal(err)
		}
		configured = string(e.Data)
	}
	if want := `{"goal":"g1","supervisor":{"execution_mode":"proposal_only","schema":"` + SchemaConfig + `","supervised_agents":["a"],"supervisor_agent":"sup"}}`; configured != want {
		t.Errorf("goal_configured holds %s, want %s", configured, want)
	}
	// Registering again is the same record.
	if written, err := s.Register(Peer{Agent: "a", Adapter: "exec"}); err != nil || written {
		t.Fatalf("a second register: written %v, %v", written, err)
	}
}

// Another feature cannot record a peer kind, nor can a raw draft.
func TestPeerKindsBelongToPeers(t *testing.T) {
	store := memstore.New()
	_, err := store.Append([]gitstore.Draft{{Kind: KindReceipt, ID: "r1", Data: []byte(`{"goal":"g1"}`)}})
	if err == nil {
		t.Fatal("a raw supervisor_receipt was recorded")
	}
	if got := gitstore.KindOwner(KindReceipt); got != "peers" {
		t.Fatalf("owner of %s = %q", KindReceipt, got)
	}
}
