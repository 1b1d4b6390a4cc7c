package daemon

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/sessions"
)

func TestCheckSpawn(t *testing.T) {
	ok := sessions.StartArgs{ModelSwitch: "/model m", ModelSwitchExpect: "Model switched to: m", Prompt: "fix it\nsee /model docs"}
	if err := checkSpawn(&ok); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		a    sessions.StartArgs
		kind fault.Kind
		want string
	}{
		{sessions.StartArgs{ModelSwitch: "/model m", ModelSwitchExpect: "ok", Prompt: "  /model big\nwork"}, fault.Refused, "the prompt carries a model switch"},
		{sessions.StartArgs{ModelSwitch: "/model m"}, fault.Invalid, "has no model_switch_expect"},
		{sessions.StartArgs{ModelSwitchExpect: "ok"}, fault.Invalid, "without model_switch"},
		{sessions.StartArgs{ModelSwitch: " \t", ModelSwitchExpect: "ok"}, fault.Invalid, "not one line"},
		{sessions.StartArgs{ModelSwitch: "/model m\nrm -rf", ModelSwitchExpect: "ok"}, fault.Invalid, "not one line"},
		{sessions.StartArgs{ErrorLog: "rel/errors.log"}, fault.Invalid, "not an absolute path"},
	} {
		err := checkSpawn(&c.a)
		if fault.KindOf(err) != c.kind || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v", c.a, err)
		}
	}
}

// The error log is read from where it stood at the start, whole lines
// only, and from the top again once rotated.
func TestErrorLogReadsOnlyNewWholeLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "errors.log")
	os.WriteFile(path, []byte("old: HTTP 402\n"), 0o600)
	e := openErrorLog(path)
	if b := e.newLines(); b != nil {
		t.Fatalf("read the old lines: %q", b)
	}
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString("HTTP 400: not a valid model\nhalf a li")
	f.Close()
	if b := string(e.newLines()); b != "HTTP 400: not a valid model\n" || classifyLog([]byte(b)) != "invalid_model" {
		t.Fatalf("new lines %q", b)
	}
	os.WriteFile(path, []byte("rate limit\n"), 0o600) // rotated: shorter than what was read
	if b := string(e.newLines()); b != "rate limit\n" {
		t.Fatalf("after rotation %q", b)
	}
}

func FuzzCheckSpawn(f *testing.F) {
	f.Add("/model {model}", "Model switched to: m", "fix it", "/tmp/e.log")
	f.Add(" ", "", "/model x", "")
	f.Fuzz(func(t *testing.T, sw, expect, prompt, log string) {
		a := &sessions.StartArgs{ModelSwitch: sw, ModelSwitchExpect: expect, Prompt: prompt, ErrorLog: log}
		if err := checkSpawn(a); err == nil && sw != "" && strings.ContainsAny(sw, "\r\n") {
			t.Fatalf("a multi-line switch passed: %q", sw)
		}
	})
}

func FuzzClassifyLog(f *testing.F) {
	f.Add([]byte("HTTP 402: more credits\nok\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		classifyLog(b)
	})
}
