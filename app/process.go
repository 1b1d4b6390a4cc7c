package app

import (
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/secrets"
	"github.com/agentproto/agentproto/launch"
	"github.com/agentproto/agentproto/sandbox"
)

// ConfigureProcess tells the process-wide guards what e's configuration
// says, read on first use (a broken one counts as empty): the secrets the
// process knows include the profiles' keys and the commands it runs get
// what [gates] pass_env names; the judges run agent-written code in the
// sandbox [sandbox] sets. Each front end calls it once.
func (e *Env) ConfigureProcess() {
	load := func() config.Config {
		cfg, _ := e.Config()
		return cfg
	}
	secrets.Configure(func() secrets.Policy { return SecretPolicy(load()) })
	sandbox.ConfigureJudged(func() sandbox.JudgedConfig { return launch.Judged(load()) })
}

// SecretPolicy is what cfg tells the secrets package: every profile's
// key_env, and the variables gates may get.
func SecretPolicy(cfg config.Config) secrets.Policy {
	p := secrets.Policy{PassEnv: cfg.Gates.PassEnv}
	for _, prof := range cfg.Profiles {
		if prof.KeyEnv != "" {
			p.SecretEnv = append(p.SecretEnv, prof.KeyEnv)
		}
	}
	return p
}
