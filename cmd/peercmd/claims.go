package peercmd

import (
	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/peers"
)

// arbiter returns the remote that arbitrates this clone's claims: [claims]
// remote, or the remote `init` configured for the ledger.
func arbiter(f *cmdutil.Factory, s *peers.Service) (*peers.Arbiter, error) {
	cfg, _, err := f.Config()
	if err != nil {
		return nil, err
	}
	return peers.OpenArbiter(s.Repo, cfg.Claims.Remote, cfg.Sync.Remote)
}
