package gitstore

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"

	"github.com/agentproto/agentproto/internal/fault"
)

// MaxBatchInput bounds what a batch of drafts may read from its input.
const MaxBatchInput = 512 << 20

// batchLine is one line of `append --batch` input.
type batchLine struct {
	Kind  string          `json:"kind"`
	ID    string          `json:"id"`
	Goal  string          `json:"goal"`
	Agent string          `json:"agent"`
	Data  json.RawMessage `json:"data"`
}

// ReadBatch reads the JSON lines of `ledger append --batch`, one draft per
// line; blank lines are skipped, unknown fields refused.
func ReadBatch(r io.Reader) ([]Draft, error) {
	sc := bufio.NewScanner(io.LimitReader(r, MaxBatchInput))
	sc.Buffer(make([]byte, 1<<20), MaxDataSize+64*1024)
	var drafts []Draft
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var bl batchLine
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&bl); err != nil {
			return nil, fault.Invalidf("batch line %d: %v", n, err)
		}
		if dec.More() {
			return nil, fault.Invalidf("batch line %d: more than one JSON value on the line", n)
		}
		if bl.Kind == "" || bl.ID == "" {
			return nil, fault.Invalidf("batch line %d: \"kind\" and \"id\" are required", n)
		}
		drafts = append(drafts, Draft{Kind: bl.Kind, ID: bl.ID, Goal: bl.Goal, Agent: bl.Agent, Data: bl.Data})
	}
	if err := sc.Err(); err != nil {
		return nil, fault.Invalidf("batch line %d: %v", n+1, err)
	}
	if len(drafts) == 0 {
		return nil, fault.Invalidf("--batch read no events from stdin")
	}
	return drafts, nil
}
