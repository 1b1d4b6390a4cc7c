// Package app is the use-case layer under both front ends: one function
// per thing a user asks for (start a session, attach a policy, dispatch a
// plan, review, freeze, render a prompt, list worktrees or plugins), taking
// a context first and a small options struct, and returning a typed
// result. The CLI verbs and the MCP tools parse their input, call one of
// these and print what it returns; neither composes the services itself,
// so the two cannot drift apart.
package app

import (
	"io"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/sessions"
)

// Env is what every use case works on. A front end builds it once; each
// dependency is made only when a use case asks for it, in the order
// Repo, Config (needs the work tree), Ledger (needs both), so a use case
// that needs no configuration works in spite of a broken agentproto.toml.
type Env struct {
	Repo   func() (*gitrepo.Repo, error)
	Config func() (config.Config, error)
	// Ledger is for use cases that write: the configured maintenance
	// applies.
	Ledger func() (*gitstore.Ledger, error)
	// ReadLedger is for use cases that only read; it needs no valid
	// configuration, so a broken agentproto.toml never hides the history.
	ReadLedger func() (*gitstore.Ledger, error)
	// Sessions is the client of the repository's sessions daemon.
	Sessions func() (*sessions.Client, error)
	// Log takes what a use case says on the side (setup hook output, a
	// note that a worktree is reused): stderr for the CLI, nothing for the
	// MCP server, whose stdout is the protocol.
	Log io.Writer
}

// Open is the use-case layer over repo for a front end that lives long
// (the MCP server): the configuration is read on every call, so an edit of
// agentproto.toml between calls is seen; serve is the command that starts
// the sessions daemon. What the use cases say on the side goes nowhere.
func Open(repo *gitrepo.Repo, serve []string) *Env {
	e := &Env{
		Repo:       func() (*gitrepo.Repo, error) { return repo, nil },
		ReadLedger: func() (*gitstore.Ledger, error) { return OpenReadLedger(repo), nil },
		Log:        io.Discard,
	}
	e.Config = func() (config.Config, error) {
		cfg, _, err := LoadConfig(repo)
		return cfg, err
	}
	// The daemon keeps the profiles' key variables, as the CLI's does: a
	// dispatch it runs for a policy starts sessions of those profiles.
	e.Sessions = func() (*sessions.Client, error) {
		var keep []string
		if cfg, err := e.Config(); err == nil {
			keep = ProfileKeys(cfg)
		}
		return &sessions.Client{Repo: repo, Serve: serve, KeepEnv: keep}, nil
	}
	e.Ledger = func() (*gitstore.Ledger, error) {
		cfg, err := e.Config()
		if err != nil {
			return nil, err
		}
		return OpenLedger(repo, cfg), nil
	}
	return e
}

// log is e.Log, or a sink when the front end gave none.
func (e *Env) log() io.Writer {
	if e.Log == nil {
		return io.Discard
	}
	return e.Log
}

// repoConfig is the repository and its configuration, the pair most use
// cases start with.
func (e *Env) repoConfig() (*gitrepo.Repo, config.Config, error) {
	repo, err := e.Repo()
	if err != nil {
		return nil, config.Config{}, err
	}
	cfg, err := e.Config()
	return repo, cfg, err
}

// store is the sessions' records on disk, read without the daemon.
func (e *Env) store() (sessions.View, error) {
	repo, err := e.Repo()
	if err != nil {
		return sessions.View{}, err
	}
	return sessions.OpenView(repo.CommonDir), nil
}

// LoadConfig reads the repository's agentproto.toml with this clone's
// own settings over it.
func LoadConfig(repo *gitrepo.Repo) (config.Config, config.Source, error) {
	cfg, src, err := config.Load(repo.WorkTree)
	if err == nil {
		cfg, err = config.WithLocal(cfg, repo.CommonDir)
	}
	return cfg, src, err
}

// OpenLedger opens the ledger for writing, with the configured
// maintenance (none unless configured).
func OpenLedger(repo *gitrepo.Repo, cfg config.Config) *gitstore.Ledger {
	maint := cfg.Ledger.AutoMaintenance
	if maint == 0 {
		maint = -1
	}
	return gitstore.Open(repo, gitstore.Options{PackThreshold: cfg.Ledger.PackThreshold, AutoMaintenance: maint})
}

// OpenReadLedger opens the ledger for reading only: it needs no valid
// configuration.
func OpenReadLedger(repo *gitrepo.Repo) *gitstore.Ledger {
	return gitstore.Open(repo, gitstore.Options{})
}
