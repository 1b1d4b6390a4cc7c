package cmdutil

import (
	"fmt"
	"os"
	"sync"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/internal/secrets"
	"github.com/agentproto/agentproto/launch"
	"github.com/agentproto/agentproto/sandbox"
	"github.com/agentproto/agentproto/sessions"
)

// Factory builds the dependencies of commands, each at most once and only
// when a command asks for it: a command that does not need the config never
// parses it. Order: Repo, then Config (needs the work tree), then Ledger
// (needs both).
type Factory struct {
	IO      *IOStreams
	Version string

	Repo   func() (*gitrepo.Repo, error)
	Config func() (config.Config, config.Source, error)
	Ledger func() (*gitstore.Ledger, error)

	warnMu sync.Mutex
	warned map[string]bool
}

// New returns the factory used by the real binary.
func New(io *IOStreams, version string) *Factory {
	f := &Factory{IO: io, Version: version}
	f.Repo = sync.OnceValues(func() (*gitrepo.Repo, error) {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		return gitrepo.Discover(wd)
	})
	type loaded struct {
		cfg config.Config
		src config.Source
	}
	loadConfig := sync.OnceValues(func() (loaded, error) {
		repo, err := f.Repo()
		if err != nil {
			return loaded{}, err
		}
		cfg, src, err := config.Load(repo.WorkTree)
		if err == nil {
			cfg, err = config.WithLocal(cfg, repo.CommonDir)
		}
		return loaded{cfg, src}, err
	})
	f.Config = func() (config.Config, config.Source, error) {
		l, err := loadConfig()
		return l.cfg, l.src, err
	}
	// The secrets the process knows include the profiles' keys, and the
	// commands it runs get what [gates] pass_env names; read on first use.
	secrets.Configure(func() secrets.Policy {
		l, _ := loadConfig()
		return SecretPolicy(l.cfg)
	})
	// The judges run agent-written code in the sandbox [sandbox] sets.
	sandbox.ConfigureJudged(func() sandbox.JudgedConfig {
		l, _ := loadConfig()
		return launch.Judged(l.cfg)
	})
	f.Ledger = sync.OnceValues(func() (*gitstore.Ledger, error) {
		repo, err := f.Repo()
		if err != nil {
			return nil, err
		}
		cfg, _, err := f.Config()
		if err != nil {
			return nil, err
		}
		maint := cfg.Ledger.AutoMaintenance
		if maint == 0 {
			maint = -1
		}
		return gitstore.Open(repo, gitstore.Options{PackThreshold: cfg.Ledger.PackThreshold, AutoMaintenance: maint}), nil
	})
	return f
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

// ReadLedger returns the ledger for commands that only read: they need no
// valid config, so a broken agentproto.toml never hides the history.
func (f *Factory) ReadLedger() (*gitstore.Ledger, error) {
	repo, err := f.Repo()
	if err != nil {
		return nil, err
	}
	return gitstore.Open(repo, gitstore.Options{}), nil
}

// Sessions returns a client of this repository's sessions daemon, which it
// starts on demand by running this same binary as `serve`.
func (f *Factory) Sessions() (*sessions.Client, error) {
	repo, err := f.Repo()
	if err != nil {
		return nil, err
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	var keep []string
	if cfg, _, err := f.Config(); err == nil {
		keep = ProfileKeys(cfg)
	}
	return &sessions.Client{Repo: repo, Serve: []string{exe, "serve"}, KeepEnv: keep, Warn: f.warnOnce}, nil
}

// warnOnce prints a warning the first time a command is told it: one
// line however many sessions a command starts.
func (f *Factory) warnOnce(msg string) {
	f.warnMu.Lock()
	defer f.warnMu.Unlock()
	if f.warned == nil {
		f.warned = map[string]bool{}
	}
	if f.warned[msg] {
		return
	}
	f.warned[msg] = true
	if f.IO != nil {
		fmt.Fprintln(f.IO.ErrOut, "warning:", msg)
	}
}

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
