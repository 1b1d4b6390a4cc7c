package forkcmd

import (
	"context"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/fork"
)

// Service builds the fork service of the factory's repository.
func Service(f *cmdutil.Factory) (*fork.Service, error) {
	return f.App().Fork(context.Background())
}
