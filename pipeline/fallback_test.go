package pipeline

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/plans"
	"github.com/agentproto/agentproto/sessions"
)

// A wave whose wait was answered by a new daemon finds its sessions failed
// with the old daemon: that is the daemon's end, the same stop as a wait it
// cut short (dispatch then names the way on), not a failure of the WP.
func TestASessionThatDiedWithItsDaemonIsTheDaemonsEnd(t *testing.T) {
	common := t.TempDir()
	view := sessions.OpenView(common)
	write := func(id, failure string) {
		os.MkdirAll(view.SessionDir(id), 0o700)
		b, _ := json.Marshal(sessions.Record{ID: id, State: sessions.StateFailed, Failure: failure})
		os.WriteFile(filepath.Join(view.SessionDir(id), "meta.json"), b, 0o600)
	}
	write("s-000000000001", sessions.FailureDaemonStopped)
	write("s-000000000002", "the adapter exited with code 3")
	d := &Dispatcher{Env: &Env{Repo: &gitrepo.Repo{CommonDir: common}, Project: &plans.Project{Name: "demo"}}, pendingFallback: map[string]string{}}

	_, err := d.handleFaults(&State{}, []plans.WP{{ID: "WP1"}}, []string{"s-000000000001"})
	if !errors.Is(err, sessions.ErrDaemonGone) {
		t.Fatalf("a session that died with its daemon: %v", err)
	}
	_, err = d.handleFaults(&State{}, []plans.WP{{ID: "WP2"}}, []string{"s-000000000002"})
	if err == nil || errors.Is(err, sessions.ErrDaemonGone) {
		t.Fatalf("a session that failed by itself: %v", err)
	}
}
