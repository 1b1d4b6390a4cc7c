package memstore_test

import (
	"testing"

	"github.com/agentproto/agentproto/gitstore/memstore"
	"github.com/agentproto/agentproto/gitstore/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.UserStore { return memstore.New() })
}
