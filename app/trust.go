package app

import (
	"context"

	"github.com/agentproto/agentproto/launch"
	"github.com/agentproto/agentproto/plugins/catalog"
	"github.com/agentproto/agentproto/plugins/vocab"
	"github.com/agentproto/agentproto/profiles"
)

// OptionsTrust is what a trust of committed options found and did: the
// options with the files their words name, and whether this call
// recorded them as trusted.
type OptionsTrust struct {
	// Adapter is the profile's adapter (profile options only).
	Adapter  string
	Options  catalog.OptionsCheck
	Recorded bool
}

// trustOptions records c as trusted on this machine unless show or it is
// trusted already.
func trustOptions(workTree string, c catalog.OptionsCheck, show bool) (*OptionsTrust, error) {
	t := &OptionsTrust{Options: c}
	if !show && !c.Trusted {
		var err error
		if t.Recorded, err = catalog.TrustOptions(workTree, c); err != nil {
			return nil, err
		}
		t.Options.Trusted = true
	}
	return t, nil
}

// TrustProfile reads the options [profiles.NAME] of a tracked
// agentproto.toml gives, hashing the files they name in dir (default:
// the repository), and unless show trusts them on this machine.
func (e *Env) TrustProfile(ctx context.Context, name, dir string, show bool) (*OptionsTrust, error) {
	repo, cfg, err := e.repoConfig()
	if err != nil {
		return nil, err
	}
	p, c, err := profiles.CommittedOptions(cfg, repo.WorkTree, repo.CommonDir, name, dir)
	if err != nil {
		return nil, err
	}
	t, err := trustOptions(repo.WorkTree, c, show)
	if t != nil {
		t.Adapter = p.Adapter
	}
	return t, err
}

// TrustNotify reads the [policies] notify command with the files it
// names and unless show trusts them on this machine; nil when there is
// no notify command.
func (e *Env) TrustNotify(ctx context.Context, show bool) (*OptionsTrust, error) {
	repo, cfg, err := e.repoConfig()
	if err != nil || cfg.Policies.Notify == "" {
		return nil, err
	}
	c, err := catalog.InspectOptions(repo.WorkTree, repo.WorkTree, catalog.NotifyLayer(cfg.Policies.Notify))
	if err != nil {
		return nil, err
	}
	return trustOptions(repo.WorkTree, c, show)
}

// TrustPlugin shows adapter name's binary and [plugins.NAME] options,
// hashing the files they name in dir, and unless show trusts them.
func (e *Env) TrustPlugin(ctx context.Context, name, dir string, show bool) (*launch.PluginTrust, error) {
	repo, cfg, err := e.repoConfig()
	if err != nil {
		return nil, err
	}
	return launch.TrustPlugin(cfg, repo.WorkTree, name, dir, show)
}

// DescribePlugin launches adapter name and returns where it was found
// and what it declares: version, capabilities, models, auth methods.
func (e *Env) DescribePlugin(ctx context.Context, name string) (catalog.Found, vocab.Info, error) {
	repo, cfg, err := e.repoConfig()
	if err != nil {
		return catalog.Found{}, vocab.Info{}, err
	}
	return launch.Describe(cfg, repo.WorkTree, name)
}

// PinPlugin records adapter name's sha256 in agentproto.toml.
func (e *Env) PinPlugin(ctx context.Context, name string) (string, error) {
	repo, cfg, err := e.repoConfig()
	if err != nil {
		return "", err
	}
	return launch.Pin(cfg, repo.WorkTree, name)
}
