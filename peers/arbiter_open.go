package peers

import (
	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/gitrepo"
)

// OpenArbiter returns the remote that arbitrates repo's claims: the
// configured [claims] remote, or else the remote sync uses for the ledger,
// with this clone's writer id.
func OpenArbiter(repo *gitrepo.Repo, claimsRemote, syncRemote string) (*Arbiter, error) {
	remote, err := ResolveClaimsRemote(repo, claimsRemote, syncRemote)
	if err != nil {
		return nil, err
	}
	writer, _, err := gitstore.EnsureWriterID(repo.CommonDir)
	if err != nil {
		return nil, err
	}
	return &Arbiter{Repo: repo, Remote: remote, Writer: writer}, nil
}
