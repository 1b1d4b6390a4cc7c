package app

import (
	"context"
	"os"

	"github.com/agentproto/agentproto/fork"
	"github.com/agentproto/agentproto/internal/fault"
)

// SettleFork settles a held result: sel selects it for verify, review
// and consolidate (nothing is merged), else it is discarded with its
// evidence kept. already is true when it was settled so before.
func (e *Env) SettleFork(ctx context.Context, id string, sel bool, reason string, evidence []string) (b *fork.Branch, already bool, err error) {
	s, err := e.Fork(ctx)
	if err != nil {
		return nil, false, err
	}
	return s.Settle(id, sel, reason, evidence)
}

// CancelFork cancels a branch before it holds a result: its session is
// killed, its peer and capacity released.
func (e *Env) CancelFork(ctx context.Context, id, reason string) (*fork.Branch, error) {
	s, err := e.Fork(ctx)
	if err != nil {
		return nil, err
	}
	b, _, err := s.Cancel(id, reason)
	return b, err
}

// ReadForkTask reads a branch's task from a file, refused past the size
// a task may have.
func ReadForkTask(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", fault.Invalidf("--task-file: %v", err)
	}
	if fi.Size() > fork.MaxTask {
		return "", fault.Invalidf("--task-file: %d bytes; a task is at most %d", fi.Size(), fork.MaxTask)
	}
	b, err := os.ReadFile(path)
	return string(b), err
}
