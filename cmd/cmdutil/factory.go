package cmdutil

import (
	"fmt"
	"os"
	"sync"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/gitrepo"
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
		cfg, src, err := app.LoadConfig(repo)
		return loaded{cfg, src}, err
	})
	f.Config = func() (config.Config, config.Source, error) {
		l, err := loadConfig()
		return l.cfg, l.src, err
	}
	f.App().ConfigureProcess()
	f.Ledger = sync.OnceValues(func() (*gitstore.Ledger, error) {
		repo, err := f.Repo()
		if err != nil {
			return nil, err
		}
		cfg, _, err := f.Config()
		if err != nil {
			return nil, err
		}
		return app.OpenLedger(repo, cfg), nil
	})
	return f
}

// ReadLedger returns the ledger for commands that only read: they need no
// valid config, so a broken agentproto.toml never hides the history.
func (f *Factory) ReadLedger() (*gitstore.Ledger, error) {
	repo, err := f.Repo()
	if err != nil {
		return nil, err
	}
	return app.OpenReadLedger(repo), nil
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
		keep = app.ProfileKeys(cfg)
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

// App is the use-case layer over the factory's dependencies; what it
// says on the side goes to stderr.
func (f *Factory) App() *app.Env {
	e := &app.Env{
		Repo: func() (*gitrepo.Repo, error) { return f.Repo() },
		Config: func() (config.Config, error) {
			cfg, _, err := f.Config()
			return cfg, err
		},
		Ledger:     func() (*gitstore.Ledger, error) { return f.Ledger() },
		ReadLedger: f.ReadLedger,
		Sessions:   f.Sessions,
	}
	if f.IO != nil {
		e.Log = f.IO.ErrOut
	}
	return e
}
