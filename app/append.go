package app

import (
	"context"
	"fmt"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/fault"
)

// AppendEvents appends events of user kinds (note, x.NAME) in one
// batch: all are checked before any is written. Other kinds belong to
// the command that records them and are refused. A refusal names the
// event by its place when batch is set. The result, when there is one,
// carries warnings even with an error.
func (e *Env) AppendEvents(ctx context.Context, drafts []gitstore.Draft, batch bool) (*gitstore.AppendResult, error) {
	for i, d := range drafts {
		if err := gitstore.ValidateKind(d.Kind); err != nil {
			return nil, lineErr(batch, i, err)
		}
		if !gitstore.IsUserKind(d.Kind) {
			owner := ""
			if name := gitstore.KindOwner(d.Kind); name != "" {
				owner = " (" + name + ")"
			}
			return nil, lineErr(batch, i, fault.Refusedf("kind %q belongs to its own command%s; ledger append accepts only note and x.NAME kinds", d.Kind, owner))
		}
	}
	l, err := e.Ledger()
	if err != nil {
		return nil, err
	}
	return l.AppendUser(drafts)
}

func lineErr(batch bool, i int, err error) error {
	if !batch {
		return err
	}
	return fmt.Errorf("event %d of the batch: %w", i+1, err)
}
