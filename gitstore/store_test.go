package gitstore_test

import (
	"testing"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/gitstore/storetest"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/internal/testgit"
)

// The git ledger keeps the Store contract, on a real repository.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.UserStore {
		testgit.Isolate(t)
		repo, err := gitrepo.Discover(testgit.Init(t))
		if err != nil {
			t.Fatal(err)
		}
		return gitstore.Open(repo, gitstore.Options{})
	})
}
