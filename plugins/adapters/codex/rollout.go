package codex

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentproto/agentproto/plugins/adapters/cliturn"
	"github.com/agentproto/agentproto/plugins/sdk"
)

// codex exec --json does not always print a command that finished as it
// started (0.169 drops some of those items, in its JSON output and in its
// own transcript alike), so a write the sandbox refused could pass unseen.
// The transcript codex keeps in $CODEX_HOME/sessions/YYYY/MM/DD/
// rollout-*-THREAD.jsonl always has the tool's output as the model got it:
// after each turn the adapter reads what the turn appended there.

// maxRollout bounds what one turn's read of the rollout takes.
const maxRollout = 64 << 20

// rolloutLine is the part of a rollout line the adapter reads.
type rolloutLine struct {
	Type    string `json:"type"`
	Payload struct {
		Type string `json:"type"`
		Item struct {
			Type             string `json:"type"`
			AggregatedOutput string `json:"aggregated_output"`
		} `json:"item"`
		Output json.RawMessage `json:"output"` // a function_call_output's text
		// A function_call's.
		Name      string `json:"name"`
		CallID    string `json:"call_id"`
		Arguments string `json:"arguments"`
	} `json:"payload"`
}

// codexHome is where codex keeps its state for this session's environment.
func codexHome(env []string) string {
	var home, codex string
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "CODEX_HOME":
			codex = v
		case "HOME":
			home = v
		}
	}
	if codex != "" {
		return codex
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".codex")
}

// End reads the rollout lines the turn added and warns of refused writes
// the JSON stream did not show (Warn drops those it did) and of commands
// the turn's end stopped (stopped.go).
func (d *driver) End(t *cliturn.Turn) {
	d.mu.Lock()
	thread, home := d.thread, d.home
	d.mu.Unlock()
	if thread == "" || home == "" {
		return
	}
	matches, _ := filepath.Glob(filepath.Join(home, "sessions", "*", "*", "*", "rollout-*-"+thread+".jsonl"))
	if len(matches) != 1 {
		return
	}
	f, err := os.Open(matches[0])
	if err != nil {
		return
	}
	defer f.Close()
	d.mu.Lock()
	off := d.rolloutOff[thread]
	d.mu.Unlock()
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return
	}
	r := bufio.NewReader(io.LimitReader(f, maxRollout))
	cmds := newCommands()
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			break // a partial last line is read again next turn
		}
		off += int64(len(line))
		var l rolloutLine
		if json.Unmarshal(line, &l) != nil {
			continue
		}
		switch {
		case l.Type == "event_msg" && l.Payload.Type == "item_completed" && l.Payload.Item.Type == "CommandExecution":
			d.refused(t, l.Payload.Item.AggregatedOutput)
		case l.Type == "response_item" && l.Payload.Type == "function_call":
			cmds.call(l.Payload.Name, l.Payload.CallID, l.Payload.Arguments)
		case l.Type == "response_item" && l.Payload.Type == "function_call_output":
			// What the model was told; present even when the command item
			// is missing.
			var text string
			if json.Unmarshal(l.Payload.Output, &text) == nil {
				d.refused(t, text)
				cmds.output(l.Payload.CallID, text)
			}
		}
	}
	cmds.warn(t)
	d.mu.Lock()
	d.rolloutOff[thread] = off
	d.mu.Unlock()
}

// refused warns of each path a shell's output says the sandbox refused.
func (d *driver) refused(t *cliturn.Turn, output string) {
	for _, m := range refusedWrite.FindAllStringSubmatch(output, -1) {
		t.Warn(sdk.WarnPermissionDenied, "shell "+strings.TrimSpace(m[1])+": refused by "+d.refusedBy())
	}
}

func (d *driver) refusedBy() string {
	if d.ours() {
		return "the agentproto sandbox"
	}
	return "the codex sandbox (" + d.sandbox + ")"
}
