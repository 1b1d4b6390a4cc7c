package acp_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentproto/agentproto/internal/fakemodel"
	"github.com/agentproto/agentproto/plugins/sdk"
)

// The capabilities a session of each real agent declares are what that
// agent's own initialize answer offers, read from the agent's stdout as it
// went to the adapter: session_resume for loadSession or
// sessionCapabilities.resume, session_state_fork for
// sessionCapabilities.fork, beside the baseline every ACP agent has.
func TestRealACPCapabilitiesFollowInitialize(t *testing.T) {
	for _, a := range append(realAgents[:len(realAgents):len(realAgents)], gemini) {
		t.Run(a.name, func(t *testing.T) {
			wire := filepath.Join(t.TempDir(), "agent-stdout.jsonl")
			a.wrap = func(cmd string) string { return `sh -c '"$@" | tee ` + wire + `' sh ` + cmd }
			st := newSetup(t, a, fakemodel.Key)
			st.fake.Script(fakemodel.Text("opened"))
			st.turn(t, "hello") // a turn runs once the session is open
			answer := initializeAnswer(t, wire)
			want := []string{sdk.CapMessageInjection, sdk.CapInterrupt}
			if answer.LoadSession || answer.SessionCapabilities["resume"] != nil {
				want = append(want, sdk.CapResume)
			}
			if answer.SessionCapabilities["fork"] != nil {
				want = append(want, sdk.CapStateFork)
			}
			want = append(want, sdk.CapTermination)
			d := st.rec.declared()
			if len(d) == 0 || !slices.Equal(d[len(d)-1], want) {
				t.Fatalf("declared %v; the agent's initialize answer %s means %v", d, answer.raw, want)
			}
			t.Logf("%s offers %s: the session has %v", a.name, answer.raw, want)
		})
	}
}

// agentAnswer is the part of an initialize answer the capabilities come
// from, decoded here on its own rather than by the adapter's types.
type agentAnswer struct {
	LoadSession         bool                       `json:"loadSession"`
	SessionCapabilities map[string]json.RawMessage `json:"sessionCapabilities"`
	raw                 json.RawMessage
}

// initializeAnswer finds the agent's answer to initialize in what it wrote
// to its stdout.
func initializeAnswer(t *testing.T, path string) agentAnswer {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var msg struct {
			Result struct {
				AgentCapabilities json.RawMessage `json:"agentCapabilities"`
			} `json:"result"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil || msg.Result.AgentCapabilities == nil {
			continue
		}
		var a agentAnswer
		if err := json.Unmarshal(msg.Result.AgentCapabilities, &a); err != nil {
			t.Fatalf("agentCapabilities %s: %v", msg.Result.AgentCapabilities, err)
		}
		// JSON null is no capability.
		for k, v := range a.SessionCapabilities {
			if string(v) == "null" {
				delete(a.SessionCapabilities, k)
			}
		}
		a.raw = msg.Result.AgentCapabilities
		return a
	}
	t.Fatalf("no initialize answer in the agent's stdout (%s)", path)
	return agentAnswer{}
}
