package app

import (
	"context"
	"time"

	"github.com/agentproto/agentproto/fork"
)

// forkReader is the fork service for reading: a broken agentproto.toml
// never hides the branches.
func (e *Env) forkReader() (*fork.Service, error) {
	repo, err := e.Repo()
	if err != nil {
		return nil, err
	}
	l, err := e.ReadLedger()
	if err != nil {
		return nil, err
	}
	return &fork.Service{Repo: repo, Ledger: l}, nil
}

// ForkBranches lists the execution branches.
func (e *Env) ForkBranches(ctx context.Context) ([]*fork.Branch, error) {
	s, err := e.forkReader()
	if err != nil {
		return nil, err
	}
	return s.List()
}

// ForkBranch is one execution branch: identities, proofs, history,
// outcome.
func (e *Env) ForkBranch(ctx context.Context, id string) (*fork.Branch, error) {
	s, err := e.forkReader()
	if err != nil {
		return nil, err
	}
	return s.Get(id)
}

// AdmitFork admits an execution branch (already is true when the same
// request was admitted before) and, with wait above zero, waits that long
// for a running branch's turn to end. The branch comes back with the
// error of a wait that failed.
func (e *Env) AdmitFork(ctx context.Context, r fork.Request, wait time.Duration) (b *fork.Branch, already bool, err error) {
	s, err := e.Fork(ctx)
	if err != nil {
		return nil, false, err
	}
	b, already, err = s.Admit(r)
	if err == nil && wait > 0 && b.State == fork.StateRunning {
		b, err = s.Wait(b.BranchID, wait)
	}
	return b, already, err
}
