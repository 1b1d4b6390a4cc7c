package app

import (
	"github.com/agentproto/agentproto/internal/companion"
	"github.com/agentproto/agentproto/internal/config"
)

// ProfileKeys names the profiles' key variables: the daemon is started
// with them, as a dispatch it runs for a policy starts sessions of those
// profiles.
func ProfileKeys(cfg config.Config) []string {
	var out []string
	for _, p := range cfg.Profiles {
		if p.KeyEnv != "" {
			out = append(out, p.KeyEnv)
		}
	}
	return out
}

// DaemonProgram is the sessions daemon's binary, agentproto-sessions,
// installed beside git-agentproto: the one program that links the plugin
// transport, so that the CLI starts without it.
func DaemonProgram() (string, error) {
	return companion.Find(companion.Sessions)
}
