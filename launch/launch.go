// Package launch resolves how one executor session is started: which
// adapter binary, with which model, options and key variable. Every path
// that starts a session (sessions start, dispatch, the reviewer, the peer
// commands) asks here, so that a profile means the same everywhere.
package launch

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/plugins/catalog"
	"github.com/agentproto/agentproto/profiles"
	"github.com/agentproto/agentproto/sandbox"
	"github.com/agentproto/agentproto/sessions"
)

// ErrNoAdapter is returned when neither a profile, an adapter nor a
// default adapter names what to run; callers say which setting to add.
var ErrNoAdapter = errors.New("no adapter: name a profile or an adapter")

// Request is what a caller knows about the session it wants.
type Request struct {
	// Profile names [profiles.NAME]; it gives the adapter, the model and
	// the key variable, and wins over Adapter.
	Profile string
	// Adapter runs when no profile is named.
	Adapter string
	// DefaultAdapter runs when neither Profile nor Adapter is given
	// ([dispatch] adapter).
	DefaultAdapter string
	// Model overrides the profile's model (a --model flag).
	Model string
	// User options win over [plugins.ADAPTER] and the profile's.
	User map[string]string
	// Env is the environment the session will be given; when not nil, a
	// profile's key variable must be set in it, checked now rather than
	// after the adapter fails to authenticate.
	Env []string
}

// Resolved is a session launch worked out from config.
type Resolved struct {
	Adapter string
	Profile string
	Model   string
	// Options are [plugins.ADAPTER] options, then the profile's, then the
	// user's.
	Options map[string]string
	// KeyEnv is the profile's key variable, passed to the adapter from the
	// caller's environment and never stored ("" for none).
	KeyEnv string
	// Found is the adapter binary: its path and the sha256 it must have.
	Found catalog.Found
	// ModelSwitch and ModelSwitchExpect are the profile's, with {model}
	// filled in; empty for agents whose model is pinned at launch.
	ModelSwitch, ModelSwitchExpect string
	// ErrorLog is the profile's agent error log, ~ expanded.
	ErrorLog string
	// WedgeAfter is the profile's wedge_after, else [sessions] wedge_after.
	WedgeAfter time.Duration
	// ReleaseAfter is [sessions] release_after.
	ReleaseAfter time.Duration
	// Sandbox is [sandbox] with the profile's writable paths added.
	Sandbox sessions.SandboxArgs
	// PassEnv is [sessions] pass_env: more variables the agent gets.
	PassEnv []string

	layers profiles.Launch
}

// Resolve works out a launch. root is the top of the working tree, where
// [plugins.NAME] paths are relative to. It runs nothing: trust is checked
// by RequireTrust, once the caller knows where the session runs.
func Resolve(cfg config.Config, root string, req Request) (*Resolved, error) {
	r := &Resolved{Adapter: req.Adapter, Profile: req.Profile, Model: req.Model, WedgeAfter: cfg.Sessions.WedgeAfter.Duration,
		ReleaseAfter: cfg.Sessions.ReleaseAfter.Duration, Sandbox: sandboxArgs(cfg.Sandbox, nil), PassEnv: cfg.Sessions.PassEnv}
	if req.Profile != "" {
		p, err := profiles.Resolve(cfg, req.Profile)
		if err != nil {
			return nil, err
		}
		r.Sandbox = sandboxArgs(cfg.Sandbox, p.Writable)
		r.Adapter, r.KeyEnv = p.Adapter, p.KeyEnv
		if r.Model == "" {
			r.Model = p.Model
		}
		if p.WedgeAfter.Duration > 0 {
			r.WedgeAfter = p.WedgeAfter.Duration
		}
		if err := r.spawnSettings(p); err != nil {
			return nil, err
		}
		if r.KeyEnv != "" && req.Env != nil && lookup(req.Env, r.KeyEnv) == "" {
			return nil, fault.Refusedf("profile %s needs $%s, which is not set", req.Profile, r.KeyEnv)
		}
	}
	if r.Adapter == "" {
		r.Adapter = req.DefaultAdapter
	}
	if r.Adapter == "" {
		return nil, fault.Wrap(fault.Invalid, ErrNoAdapter)
	}
	r.layers = profiles.Launch{Adapter: r.Adapter, Profile: r.Profile, User: req.User}
	r.Options = r.layers.Options(cfg)
	found, err := catalog.Discover(r.Adapter, cfg.Plugins, root)
	if err != nil {
		return nil, err
	}
	r.Found = found
	return r, nil
}

// Adapter finds an adapter by name alone, for commands that only describe
// it (its capabilities, its models) and start no session.
func Adapter(cfg config.Config, root, name string) (catalog.Found, error) {
	return catalog.Discover(name, cfg.Plugins, root)
}

// RequireTrust refuses, exit 5, a launch that would use committed options
// not trusted on this machine. dir is where the session runs; trustDir is
// what the trust command is to hash ("" for the repository itself).
func (r *Resolved) RequireTrust(cfg config.Config, root, common, dir, trustDir string) error {
	return r.layers.RequireTrust(cfg, root, common, dir, trustDir)
}

// AllowEnv lists the variables beyond the adapter environment that the
// session gets: the key variable, if any.
func (r *Resolved) AllowEnv() []string {
	if r.KeyEnv == "" {
		return nil
	}
	return []string{r.KeyEnv}
}

// StartArgs is the start request for the sessions daemon, with what the
// launch decides filled in; the caller adds where it runs and its prompt.
func (r *Resolved) StartArgs() *sessions.StartArgs {
	return &sessions.StartArgs{Adapter: r.Adapter, Path: r.Found.Path, SHA256: r.Found.SHA256, Model: r.Model,
		Options: r.Options, AllowEnv: r.AllowEnv(), PassEnv: r.PassEnv, Profile: r.Profile,
		ModelSwitch: r.ModelSwitch, ModelSwitchExpect: r.ModelSwitchExpect, ErrorLog: r.ErrorLog, WedgeAfter: r.WedgeAfter, ReleaseAfter: r.ReleaseAfter, Sandbox: r.Sandbox}
}

// sandboxArgs are [sandbox] and a profile's writable paths, ~ expanded
// against this user's HOME.
func sandboxArgs(s config.Sandbox, profileWritable []string) sessions.SandboxArgs {
	home, _ := os.UserHomeDir()
	out := sessions.SandboxArgs{Mode: s.Mode}
	for _, p := range append(append([]string{}, s.Writable...), profileWritable...) {
		out.Writable = append(out.Writable, config.ExpandHome(p, home))
	}
	for _, p := range s.Readable {
		out.Readable = append(out.Readable, config.ExpandHome(p, home))
	}
	return out
}

// pinnedAtLaunch are the adapters that give the agent its model on its
// command line: a model switch prompt is never sent to them.
var pinnedAtLaunch = map[string]bool{"claude-code": true, "codex": true}

// spawnSettings fills in the profile's model switch and error log.
func (r *Resolved) spawnSettings(p config.Profile) error {
	if p.ErrorLog != "" {
		path := p.ErrorLog
		if rest, ok := strings.CutPrefix(path, "~/"); ok {
			home, err := os.UserHomeDir()
			if err != nil {
				return fault.Invalidf("profile %s: error_log %q: %v", r.Profile, p.ErrorLog, err)
			}
			path = filepath.Join(home, rest)
		}
		r.ErrorLog = filepath.Clean(path)
	}
	if p.ModelSwitch == "" || pinnedAtLaunch[p.Adapter] {
		return nil
	}
	if r.Model == "" {
		return fault.Invalidf("profile %s has a model_switch but no model to switch to", r.Profile)
	}
	r.ModelSwitch = strings.ReplaceAll(p.ModelSwitch, "{model}", r.Model)
	r.ModelSwitchExpect = strings.ReplaceAll(p.ModelSwitchExpect, "{model}", r.Model)
	return nil
}

// Describe says how the session runs, for progress lines: "scripted" or
// "profile cheap, scripted".
func (r *Resolved) Describe() string {
	if r.Profile == "" {
		return r.Adapter
	}
	return "profile " + r.Profile + ", " + r.Adapter
}

func lookup(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
			return v
		}
	}
	return ""
}

// Judged is [sandbox] for the runs of agent-written code by the judges
// (gates, tests, mutants): its mode and added paths, ~ expanded.
func Judged(cfg config.Config) sandbox.JudgedConfig {
	a := sandboxArgs(cfg.Sandbox, nil)
	mode, err := sandbox.ParseMode(a.Mode)
	if err != nil {
		mode = sandbox.ModeRequired // validated config never gets here; refuse rather than run loose
	}
	return sandbox.JudgedConfig{Mode: mode, Writable: a.Writable, Readable: a.Readable}
}
