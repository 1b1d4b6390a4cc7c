package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/fakemodel"
)

// A session of each real ACP agent, run by the sessions daemon, records
// the capabilities the agent's own initialize answer offers (read from the
// agent's stdout on its way to the adapter), in meta.json, in sessions ls
// --json and in its session_settled event: resume for loadSession or
// sessionCapabilities.resume, state fork for sessionCapabilities.fork.
func TestRealACPSessionRecordsWhatInitializeOffers(t *testing.T) {
	bins := os.Getenv("AGENTPROTO_REAL_AGENTS")
	if bins == "" {
		t.Skip("the real ACP agents are not installed: run make test-agents")
	}
	if err := acpAdapter(); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, command, model, keyEnv, options string }{
		{"claude-code-acp", "env IS_SANDBOX=1 " + filepath.Join(bins, "claude-code-acp"), "claude-sonnet-4-5-20250929", "ANTHROPIC_API_KEY", ""},
		{"codex-acp", filepath.Join(bins, "codex-acp"), "gpt-5.4", "OPENAI_API_KEY", `, mode = "read-only"`},
		{"gemini", "env GOOGLE_GEMINI_BASE_URL=%s " + filepath.Join(bins, "gemini") + " --experimental-acp", "gemini-2.5-pro", "GEMINI_API_KEY", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := newRepo(t)
			home := homeOf(t)
			api := fakemodel.New(t)
			api.SetModels(c.model)
			command := c.command
			switch c.name {
			case "claude-code-acp":
				writeConfig(t, filepath.Join(home, ".claude", "settings.json"), api.ClaudeSettings(1))
			case "codex-acp":
				writeConfig(t, filepath.Join(home, ".codex", "config.toml"), api.CodexConfig(c.model, c.keyEnv, 1))
			case "gemini":
				command = fmt.Sprintf(command, api.URL)
			}
			wire := filepath.Join(t.TempDir(), "agent-stdout.jsonl")
			command = `sh -c '"$@" | tee ` + wire + `' sh ` + command
			// The test's tap on the wire writes outside the session: the
			// sandbox is told it may.
			os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte(fmt.Sprintf(`[sandbox]
writable = [%q]
[profiles.acp]
adapter = "acp"
model = %q
auth = "api-key"
key_env = %q
options = { command = %q%s }
`, filepath.Dir(wire), c.model, c.keyEnv, command, c.options)), 0o644)
			run := func(args ...string) string {
				t.Helper()
				cmd := exec.Command("git", append([]string{"agentproto"}, args...)...)
				cmd.Dir = dir
				cmd.Env = append(gitEnv(home), c.keyEnv+"="+fakemodel.Key)
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
				}
				return strings.TrimSpace(string(out))
			}
			api.Script(fakemodel.Text("READY"), fakemodel.Text("hello back"))
			id := run("sessions", "start", "--profile", "acp", "--dir", dir, "--prompt", "hello")
			run("sessions", "wait", id, "--timeout", "2m")

			offers := initializeOffers(t, wire)
			want := []string{"session_message_injection", "session_interrupt"}
			if offers.LoadSession || offers.SessionCapabilities["resume"] != nil {
				want = append(want, "session_resume")
			}
			if offers.SessionCapabilities["fork"] != nil {
				want = append(want, "session_state_fork")
			}
			want = append(want, "session_termination")

			var rows []recordCaps
			if err := json.Unmarshal([]byte(run("sessions", "ls", "--json")), &rows); err != nil || len(rows) != 1 {
				t.Fatalf("sessions ls --json: %v %+v", err, rows)
			}
			if r := rows[0]; !slices.Equal(r.Capabilities, want) || r.CapabilitiesFrom != "session" {
				t.Fatalf("recorded %v from %q; the agent's initialize answer %s means %v", r.Capabilities, r.CapabilitiesFrom, offers.raw, want)
			}
			settled := run("ledger", "log", "--kind", "session_settled", "--json")
			quoted, _ := json.Marshal(want)
			if !strings.Contains(settled, `"capabilities":`+string(quoted)) || !strings.Contains(settled, `"capabilities_from":"session"`) {
				t.Fatalf("session_settled does not carry %s:\n%s", quoted, settled)
			}
		})
	}
}

type recordCaps struct {
	Capabilities     []string `json:"capabilities"`
	CapabilitiesFrom string   `json:"capabilities_from"`
}

// agentOffers is the part of an ACP initialize answer the capabilities
// come from.
type agentOffers struct {
	LoadSession         bool                       `json:"loadSession"`
	SessionCapabilities map[string]json.RawMessage `json:"sessionCapabilities"`
	raw                 json.RawMessage
}

// initializeOffers finds the agent's answer to initialize in what it wrote
// to its stdout.
func initializeOffers(t *testing.T, path string) agentOffers {
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
		var o agentOffers
		if err := json.Unmarshal(msg.Result.AgentCapabilities, &o); err != nil {
			t.Fatalf("agentCapabilities %s: %v", msg.Result.AgentCapabilities, err)
		}
		for k, v := range o.SessionCapabilities {
			if string(v) == "null" {
				delete(o.SessionCapabilities, k) // null is not offered
			}
		}
		o.raw = msg.Result.AgentCapabilities
		return o
	}
	t.Fatalf("no initialize answer in the agent's stdout (%s)", path)
	return agentOffers{}
}
