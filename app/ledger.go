package app

import (
	"context"
	"encoding/json"

	"github.com/agentproto/agentproto/gitstore"
)

// LogOptions are the inputs of LedgerLog.
type LogOptions struct {
	// Kind keeps only events of this kind ("": all).
	Kind string
	// Limit is the most events to return (0: all).
	Limit   int
	Reverse bool
}

// LedgerLog is the ledger's events, newest first (Reverse: oldest
// first), each envelope exactly as stored.
func (e *Env) LedgerLog(ctx context.Context, o LogOptions) ([]json.RawMessage, error) {
	q := gitstore.Query{Limit: o.Limit, Reverse: o.Reverse}
	if o.Kind != "" {
		if err := gitstore.ValidateKind(o.Kind); err != nil {
			return nil, err
		}
		q.Kinds = []string{o.Kind}
	}
	l, err := e.ReadLedger()
	if err != nil {
		return nil, err
	}
	items := []json.RawMessage{}
	err = l.Envelopes(q, func(env []byte) error {
		items = append(items, append(json.RawMessage(nil), env...))
		return nil
	})
	return items, err
}
