package sessions

import "github.com/agentproto/agentproto/gitstore"

// DaemonKinds are the ledger kinds the daemon (sessions/daemon) declares
// and records: a transition per state, and its spawn, diagnosis, wedge
// and policy events. git-agentproto does not link the daemon, so it
// learns their owner from this list to name it when ledger append
// refuses one (cmd/agentproto-sessions checks the list against the
// daemon's declarations).
var DaemonKinds = []string{
	"session_" + StateLaunched, "session_" + StateRunning, "session_" + StateSettled,
	"session_" + StateExited, "session_" + StateFailed, "session_" + StateCleaned,
	"session_spawn", "session_diagnosed", "session_wedged", "policy_fired",
}

// DaemonOwner is the name the daemon's kinds are owned under.
const DaemonOwner = "sessions"

func init() { gitstore.OwnedElsewhere(DaemonOwner, DaemonKinds...) }
