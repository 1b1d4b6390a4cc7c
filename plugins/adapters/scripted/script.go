package scripted

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strings"
)

// Step is one line of a script.
type Step struct {
	Op      string          `json:"op"`
	Path    string          `json:"path,omitempty"`
	Content string          `json:"content,omitempty"`
	Cmd     string          `json:"cmd,omitempty"`
	Text    string          `json:"text,omitempty"`
	Ms      int             `json:"ms,omitempty"`
	Code    int             `json:"code,omitempty"`
	Fault   string          `json:"fault,omitempty"`
	Bytes   int             `json:"bytes,omitempty"`
	Report  json.RawMessage `json:"report,omitempty"`
	Usage   usage           `json:"usage,omitzero"`
}

// scriptForm is what a script must look like, said with every error in
// one, since the person who wrote it is reading the session's warnings.
const scriptForm = "a script is one JSON object per line, such as {\"op\":\"write\",\"path\":\"a.txt\",\"content\":\"x\\n\"}; " +
	"ops: write, append, delete (path, content), run (cmd), say (text), report (report), sleep (ms); " +
	"the block ends at the first ``` line, so text holding ``` ends it early: give a report with the report op"

// Parse extracts the steps of the agentproto-script block of a prompt.
func Parse(prompt string) ([]Step, bool, error) {
	const open = "```agentproto-script"
	i := strings.Index(prompt, open)
	if i < 0 {
		return nil, false, nil
	}
	body := prompt[i+len(open):]
	// Lines count from the one after the fence, as an editor shows them
	// inside the block.
	if k := strings.IndexByte(body, '\n'); k >= 0 {
		body = body[k+1:]
	}
	j := strings.Index(body, "```")
	if j < 0 {
		return nil, true, fmt.Errorf("the agentproto-script block is not closed")
	}
	var steps []Step
	sc := bufio.NewScanner(strings.NewReader(body[:j]))
	sc.Buffer(make([]byte, 64*1024), 8<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var s Step
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&s); err != nil {
			return nil, true, fmt.Errorf("script line %d: %v (%s)", n, err, scriptForm)
		}
		steps = append(steps, s)
	}
	return steps, true, sc.Err()
}
