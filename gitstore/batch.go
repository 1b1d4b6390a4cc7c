package gitstore

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/agentproto/agentproto/internal/fault"
)

// Bounds on `append --batch` input. A batch is one atomic append, so it is
// held whole before anything is written: the caps keep that memory bounded
// whatever arrives on stdin, and fail at the line that crossed them.
const (
	// MaxBatchInput bounds the bytes of a whole batch.
	MaxBatchInput = 64 << 20
	// MaxBatchLine bounds one line: the data limit plus room for the
	// envelope fields around it.
	MaxBatchLine = MaxDataSize + 64<<10
)

// batchLine is one line of `append --batch` input.
type batchLine struct {
	Kind  string          `json:"kind"`
	ID    string          `json:"id"`
	Goal  string          `json:"goal"`
	Agent string          `json:"agent"`
	Data  json.RawMessage `json:"data"`
}

// ReadBatch reads the JSON lines of `ledger append --batch`, one draft per
// line; blank lines are skipped, unknown fields, keys given twice and bytes
// that are not UTF-8 refused. Each line is read, checked and reduced to its
// draft before the next is read, so nothing beyond the drafts is kept.
func ReadBatch(r io.Reader) ([]Draft, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxBatchLine)
	var drafts []Draft
	n, total := 0, 0
	for sc.Scan() {
		n++
		total += len(sc.Bytes()) + 1
		if total > MaxBatchInput {
			return nil, fault.Invalidf("batch line %d: the batch passes %d MiB; split it into smaller batches", n, MaxBatchInput>>20)
		}
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		d, err := parseBatchLine(line)
		if err != nil {
			return nil, fault.Invalidf("batch line %d: %v", n, err)
		}
		drafts = append(drafts, d)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fault.Invalidf("batch line %d is longer than %d bytes (an event's data is at most %d)", n+1, MaxBatchLine, MaxDataSize)
		}
		return nil, fault.Invalidf("batch line %d: %v", n+1, err)
	}
	if len(drafts) == 0 {
		return nil, fault.Invalidf("--batch read no events from stdin")
	}
	return drafts, nil
}

// parseBatchLine decodes one non-blank line into a draft whose data is
// already canonical, so the line's bytes can be dropped.
func parseBatchLine(line []byte) (Draft, error) {
	if err := checkStrictJSON("the line", line); err != nil {
		return Draft{}, err
	}
	var bl batchLine
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&bl); err != nil {
		return Draft{}, err
	}
	if dec.More() {
		return Draft{}, errors.New("more than one JSON value on the line")
	}
	if bl.Kind == "" || bl.ID == "" {
		return Draft{}, fmt.Errorf(`"kind" and "id" are required`)
	}
	d := Draft{Kind: bl.Kind, ID: bl.ID, Goal: bl.Goal, Agent: bl.Agent, Data: bl.Data}
	if len(d.Data) > 0 {
		data, err := canonicalData(d.Data)
		if err != nil {
			return Draft{}, err
		}
		d.Data = data
	}
	return d, nil
}
