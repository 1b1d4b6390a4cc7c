package fork

import (
	"strings"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/peers"
)

// Peers is the peer protocol's service for a clone, with fork joined to it
// as every front end must join it: fork is in the decision set only when
// the clone's HostCheck passes, and the packet lists the live branches.
// svc is asked only when a fork decision needs the host check. waiting
// lists the plans' waiting decisions for the packet (peers.Service.Waiting;
// the front ends hand in pipeline.AllWaitingDecisions, which fork may not
// import).
func Peers(repo *gitrepo.Repo, l *gitstore.Ledger, svc func() (*Service, error), waiting func() (any, []error, error)) *peers.Service {
	gate := func() error {
		s, err := svc()
		if err != nil {
			return err
		}
		return s.HostCheck()
	}
	return &peers.Service{Repo: repo, Ledger: l, ForkGate: gate, ForkRows: packetRows(l), Waiting: waiting}
}

// packetRows lists the live fork branches of the clone for the packet.
func packetRows(l *gitstore.Ledger) func() ([]peers.ForkRow, error) {
	return func() ([]peers.ForkRow, error) {
		all, err := Read(l)
		if err != nil {
			return nil, err
		}
		rows := []peers.ForkRow{}
		for _, b := range all {
			if !b.Live() {
				continue
			}
			r := peers.ForkRow{Branch: b.BranchID, State: b.State, SourceAgent: b.SourceAgent, Executor: b.ExecutorAgent}
			if n := len(b.History); n > 0 {
				_, r.Since, _ = strings.Cut(b.History[n-1], "@")
			}
			if b.State == StateHeld {
				r.ResultRef = b.ResultRef
				if b.Outcome != nil && b.Outcome.ResultRef != "" {
					r.ResultRef = b.Outcome.ResultRef
				}
			}
			rows = append(rows, r)
		}
		return rows, nil
	}
}
