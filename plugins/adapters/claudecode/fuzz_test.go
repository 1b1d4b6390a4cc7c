package claudecode

import (
	"strings"
	"testing"

	"github.com/agentproto/agentproto/plugins/adapters/cliturn"
	"github.com/agentproto/agentproto/plugins/sdk"
)

type sink struct{ faults, warnings []string }

func (s *sink) Output([]byte) {}
func (s *sink) TurnStarted()  {}
func (s *sink) TurnEnded()    {}
func (s *sink) Exited(int)    {}
func (s *sink) Error(text, fault string) {
	if sdk.IsWarning(fault) {
		s.warnings = append(s.warnings, fault)
	} else {
		s.faults = append(s.faults, fault)
	}
}

// Any stream of lines parses without a panic, each fault kind is reported
// at most once a turn, and a session id that goes back into argv is safe.
func FuzzLines(f *testing.F) {
	f.Add(`{"type":"system","subtype":"init","session_id":"abc"}` + "\n" + `{"type":"assistant","message":{"content":[{"type":"text","text":"API Error: 529"}]},"error":"server_error","api_error_status":529}` + "\n" + `{"type":"result","subtype":"success","is_error":true,"api_error_status":529,"result":"API Error: 529"}`)
	f.Add(`{"type":"system","subtype":"permission_denied","tool_name":"Write","tool_use_id":"t1"}` + "\n" + `{"type":"result","permission_denials":[{"tool_name":"Write","tool_use_id":"t1","tool_input":{"file_path":"/x"}}]}`)
	f.Add(`{"type":"system","session_id":"-rf"}` + "\n" + `not json`)
	f.Fuzz(func(t *testing.T, stream string) {
		d := &driver{opts: cliturn.Options{Binary: "claude"}, mode: "acceptEdits"}
		out := &sink{}
		turn := &cliturn.Turn{N: 1, Out: out}
		d.Command(turn)
		for _, l := range strings.Split(stream, "\n") {
			d.Line(turn, []byte(l))
		}
		seen := map[string]bool{}
		for _, f := range out.faults {
			if f != "" && seen[f] {
				t.Fatalf("fault %s twice: %v", f, out.faults)
			}
			seen[f] = true
		}
		if d.session != "" && !cliturn.SafeID(d.session) {
			t.Fatalf("unsafe session id kept: %q", d.session)
		}
		// A prompt no session id can be (ids have no spaces): a session id
		// "p" goes into argv after --resume, rightly.
		const prompt = "the prompt"
		c, _ := d.Command(&cliturn.Turn{N: 2, Prompt: prompt, Out: out})
		for _, a := range c.Args {
			if strings.Contains(a, prompt) {
				t.Fatalf("the prompt went into argv: %q", c.Args)
			}
		}
		if c.Stdin != prompt {
			t.Fatalf("the prompt is not what the agent reads on stdin: %q", c.Stdin)
		}
	})
}

func TestOneFaultPerProviderError(t *testing.T) {
	d := &driver{opts: cliturn.Options{Binary: "claude"}, mode: "acceptEdits"}
	out := &sink{}
	turn := &cliturn.Turn{N: 1, Out: out}
	d.Command(turn)
	for _, l := range []string{
		`{"type":"system","subtype":"api_retry","attempt":1,"max_retries":1,"retry_delay_ms":600,"error_status":529,"error":"overloaded"}`,
		`{"type":"assistant","message":{"content":[{"type":"text","text":"API Error: 529 Overloaded."}]},"error":"server_error","api_error_status":529}`,
		`{"type":"result","subtype":"success","is_error":true,"api_error_status":529,"result":"API Error: 529 Overloaded."}`,
	} {
		d.Line(turn, []byte(l))
	}
	if len(out.faults) != 1 || out.faults[0] != sdk.FaultProviderUnavailable || len(out.warnings) != 1 || out.warnings[0] != sdk.WarnRetrying {
		t.Fatalf("faults %v warnings %v", out.faults, out.warnings)
	}
}
