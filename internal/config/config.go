// Package config loads agentproto.toml strictly: an unknown key, a wrong type
// or a bad value is an error naming the key and its line.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/lazyre"
	"github.com/agentproto/agentproto/internal/repopath"
	"github.com/agentproto/agentproto/internal/secrets"
)

// FileName is the config file at the top of the working tree.
const FileName = "agentproto.toml"

// Config is the whole of agentproto.toml. Every field has a default so that
// a repository without the file works.
type Config struct {
	Ledger   Ledger             `toml:"ledger" json:"ledger"`
	Sync     Sync               `toml:"sync" json:"sync"`
	Claims   Claims             `toml:"claims" json:"claims"`
	Fork     Fork               `toml:"fork" json:"fork"`
	Plans    Plans              `toml:"plans" json:"plans"`
	Worktree Worktree           `toml:"worktree" json:"worktree"`
	Plugins  map[string]Plugin  `toml:"plugins" json:"plugins"`
	Sessions Sessions           `toml:"sessions" json:"sessions"`
	Dispatch Dispatch           `toml:"dispatch" json:"dispatch"`
	E2E      E2E                `toml:"e2e" json:"e2e"`
	Gates    Gates              `toml:"gates" json:"gates"`
	PR       PR                 `toml:"pr" json:"pr"`
	Profiles map[string]Profile `toml:"profiles" json:"profiles"`
	Policies Policies           `toml:"policies" json:"policies"`
	Review   Review             `toml:"review" json:"review"`
}

// Review configures review.
type Review struct {
	// MutationBudget bounds the mutation smoke of one change ("0s": off).
	MutationBudget string `toml:"mutation_budget" json:"mutation_budget"`
}

// Profile is an executor profile: an adapter, a model and how it
// authenticates. It holds no secret: KeyEnv names the variable whose value
// is read from the environment at launch.
type Profile struct {
	Adapter string            `toml:"adapter" json:"adapter"`
	Model   string            `toml:"model" json:"model,omitempty"`
	Auth    string            `toml:"auth" json:"auth"` // api-key, subscription, none
	KeyEnv  string            `toml:"key_env" json:"key_env,omitempty"`
	Options map[string]string `toml:"options" json:"options,omitempty"`
}

// Policies configures the daemon's policy actions.
type Policies struct {
	// Notify is the command the notify action runs (sh -c), with
	// AGENTPROTO_SESSION and AGENTPROTO_EVENT set.
	Notify string `toml:"notify" json:"notify,omitempty"`
}

// Dispatch configures how work packages are dispatched.
type Dispatch struct {
	// Adapter runs WPs whose [[wp]] entry names none.
	Adapter string `toml:"adapter" json:"adapter"`
	// MaxParallel bounds the sessions of one wave.
	MaxParallel int `toml:"max_parallel" json:"max_parallel"`
	// Timeout bounds the wait for a wave's turns (a duration, "40m").
	Timeout string `toml:"timeout" json:"timeout"`
	// GateTimeout bounds one gate run.
	GateTimeout string `toml:"gate_timeout" json:"gate_timeout"`
	// Fallback lists profiles in the order dispatch tries them when a
	// provider is dead (no credit, wrong model, auth, unavailable).
	Fallback []string `toml:"fallback" json:"fallback"`
	// RateLimitWait is the first backoff after a rate_limited fault.
	RateLimitWait string `toml:"rate_limit_wait" json:"rate_limit_wait"`
}

// E2E lists the live commands run against the integration worktree.
type E2E struct {
	Commands []string `toml:"commands" json:"commands"`
}

// Gates configures the environment of the commands run on the user's
// behalf: gates, e2e commands and worktree hooks. They get what a build
// needs, never agentproto's tokens or the profiles' keys.
type Gates struct {
	// PassEnv names more variables they get: NAME, or PREFIX* for every
	// variable starting with PREFIX.
	PassEnv []string `toml:"pass_env" json:"pass_env,omitempty"`
}

// PR configures pull requests.
type PR struct {
	// Remote receives the integration branch and names the repository.
	Remote string `toml:"remote" json:"remote"`
	// Repo ("OWNER/NAME") and Host override what the remote URL says.
	Repo  string `toml:"repo" json:"repo,omitempty"`
	Host  string `toml:"host" json:"host,omitempty"`
	Draft bool   `toml:"draft" json:"draft"`
}

// Plugin configures one executor adapter: [plugins.NAME].
type Plugin struct {
	// Path of the adapter binary; default: agentproto-adapter-NAME on PATH.
	Path string `toml:"path" json:"path,omitempty"`
	// SHA256 pins the binary: a different one is refused.
	SHA256 string `toml:"sha256" json:"sha256,omitempty"`
	// Options are passed to the adapter when a session starts.
	Options map[string]string `toml:"options" json:"options,omitempty"`
}

// Sessions configures the sessions daemon.
type Sessions struct {
	// IdleExit: the daemon stops after this long with no live session and
	// no client (a duration such as "10m").
	IdleExit string `toml:"idle_exit" json:"idle_exit"`
}

// Worktree configures where worktrees live and how they are set up. The
// hook keys (setup, copy, env, teardown) are read from agentproto.toml as
// committed at the base revision, never from a working tree, and run only
// once trusted on this machine.
type Worktree struct {
	// Root is where worktrees live (<root>/<repo>/<slug>).
	Root string `toml:"root" json:"root"`
	// Base is the default base revision of new worktrees.
	Base string `toml:"base" json:"base"`
	// Setup commands run in a new worktree, in order.
	Setup []string `toml:"setup" json:"setup"`
	// Copy lists files (globs, relative to the main worktree) copied into a
	// new worktree: typically ignored files such as .env.
	Copy []string `toml:"copy" json:"copy"`
	// Env is added to the environment of setup and teardown commands.
	Env map[string]string `toml:"env" json:"env"`
	// Teardown commands run in a worktree before it is removed.
	Teardown []string `toml:"teardown" json:"teardown"`
	// Submodules: new worktrees initialise and update their submodules
	// (git submodule update --init --recursive); else they stay empty
	// directories, as git worktree add leaves them.
	Submodules bool `toml:"submodules" json:"submodules"`
}

// Plans configures plan files and executor prompts.
type Plans struct {
	// Gate is the default gate command of new plans: a command whose exit
	// code says whether the work is done.
	Gate string `toml:"gate" json:"gate"`
	// ContractBlock is a repository file whose text replaces the built-in
	// brief contract block.
	ContractBlock string `toml:"contract_block" json:"contract_block"`
	// AgentInstructions is the file that holds the definition of done;
	// briefs point to it and never restate it.
	AgentInstructions string `toml:"agent_instructions" json:"agent_instructions"`
}

// Ledger tunes how events are written.
type Ledger struct {
	// PackThreshold: appends of at least this many events write one pack.
	PackThreshold int `toml:"pack_threshold" json:"pack_threshold"`
	// AutoMaintenance: loose objects written before the ledger packs them;
	// 0 disables.
	AutoMaintenance int `toml:"auto_maintenance" json:"auto_maintenance"`
}

// Sync says where `git agentproto sync` and the pre-push hook send the ledger.
type Sync struct {
	// Remote is the default remote of `sync`.
	Remote string `toml:"remote" json:"remote"`
	// PushOnPrePush pushes the ledger refs along with every `git push`
	// when the pre-push hook is installed.
	PushOnPrePush bool `toml:"push_on_pre_push" json:"push_on_pre_push"`
}

// Claims says which remote arbitrates todo claims across clones.
type Claims struct {
	// Remote takes claims by create-only or compare-and-swap pushes of
	// claim refs; empty: the remote `init` gave the ledger fetch refspec.
	Remote string `toml:"remote" json:"remote,omitempty"`
}

// Fork bounds the fork extension: how many execution branches may hold
// capacity at once (0: one).
type Fork struct {
	MaxBranches int `toml:"max_branches" json:"max_branches,omitempty"`
}

// Default returns the configuration used when a key is absent.
func Default() Config {
	return Config{
		Ledger:   Ledger{PackThreshold: 16, AutoMaintenance: 2000},
		Sync:     Sync{Remote: "origin"},
		Plans:    Plans{Gate: "make test", AgentInstructions: "AGENTS.md"},
		Sessions: Sessions{IdleExit: "10m"},
		Dispatch: Dispatch{MaxParallel: 4, Timeout: "40m", GateTimeout: "30m", RateLimitWait: "30s"},
		PR:       PR{Remote: "origin"},
		Review:   Review{MutationBudget: "60s"},
	}
}

// Source says where a configuration came from.
type Source struct {
	Path   string `json:"path,omitempty"`
	Exists bool   `json:"exists"`
}

// LocalProfiles is the file of this clone's own profile overrides, under
// the common git dir: never committed.
const LocalProfiles = "agentproto/profiles.toml"

// WithLocal merges this clone's profile overrides over cfg: a local
// profile replaces the committed one of the same name.
func WithLocal(cfg Config, common string) (Config, error) {
	path := filepath.Join(common, LocalProfiles)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return cfg, nil
	}
	if err != nil {
		return cfg, err
	}
	var local struct {
		Profiles map[string]Profile `toml:"profiles"`
	}
	if err := DecodeStrict(b, path, &local); err != nil {
		return cfg, err
	}
	merged := map[string]Profile{}
	for k, v := range cfg.Profiles {
		merged[k] = v
	}
	for k, v := range local.Profiles {
		if err := v.validate(); err != nil {
			return cfg, fault.Invalidf("%s: [profiles.%s] %v", path, k, err)
		}
		merged[k] = v
	}
	cfg.Profiles = merged
	return cfg, nil
}

// Load reads agentproto.toml from the top of the working tree dir; a missing
// file yields the defaults.
func Load(workTree string) (Config, Source, error) {
	src := Source{}
	if workTree == "" {
		return Default(), src, nil
	}
	src.Path = filepath.Join(workTree, FileName)
	b, err := os.ReadFile(src.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return Default(), src, nil
	}
	if err != nil {
		return Config{}, src, err
	}
	src.Exists = true
	cfg, err := Parse(b, FileName)
	return cfg, src, err
}

// Parse decodes TOML text on top of the defaults and validates it. name is
// used in messages.
func Parse(text []byte, name string) (Config, error) {
	cfg := Default()
	if err := DecodeStrict(text, name, &cfg); err != nil {
		return Config{}, err
	}
	if err := cfg.validate(); err != nil {
		return Config{}, ValueError(text, name, err)
	}
	return cfg, nil
}

// DecodeStrict decodes TOML into v and refuses unknown keys; every error is
// Invalid and names the file, line and key.
func DecodeStrict(text []byte, name string, v any) error {
	md, err := toml.NewDecoder(bytes.NewReader(text)).Decode(v)
	if err != nil {
		var perr toml.ParseError
		if errors.As(err, &perr) {
			return fault.Invalidf("%s:%d: %s", name, perr.Position.Line, perr.Message)
		}
		if m := typeErrPattern.FindStringSubmatch(err.Error()); m != nil {
			return fault.Invalidf("%s:%s: %s: %s", name, m[1], m[2], m[3])
		}
		return fault.Invalidf("%s: %v", name, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return fault.Invalidf("%s:%d: unknown key %q", name, lineOf(text, und[0]), und[0].String())
	}
	return nil
}

// ValueError places an error made by BadValue at its line in text.
func ValueError(text []byte, name string, err error) error {
	var ve *valueError
	if errors.As(err, &ve) {
		return fault.Invalidf("%s:%d: %s: %s", name, lineOf(text, ve.key), ve.key.String(), ve.msg)
	}
	return err
}

var envName = lazyre.New(`^[A-Z_][A-Z0-9_]*$`)

func (p Profile) validate() error {
	if !pluginName.MatchString(p.Adapter) {
		return fmt.Errorf("adapter %q is not an adapter name", p.Adapter)
	}
	switch p.Auth {
	case "api-key":
		if p.KeyEnv == "" {
			return fmt.Errorf("auth = \"api-key\" needs key_env, the NAME of the variable holding the key")
		}
	case "subscription", "none":
	default:
		return fmt.Errorf("auth %q is not api-key, subscription or none", p.Auth)
	}
	if p.KeyEnv != "" && !envName.MatchString(p.KeyEnv) {
		return fmt.Errorf("key_env must name an environment variable (such as ANTHROPIC_API_KEY), not hold a value")
	}
	return nil
}

var (
	pluginName = lazyre.New(`^[a-z0-9][a-z0-9-]{0,62}$`)
	sha256Hex  = lazyre.New(`^[0-9a-fA-F]{64}$`)
)

// typeErrPattern reads the line and key out of the decoder's type errors,
// which are plain strings rather than ParseErrors.
var typeErrPattern = lazyre.New(`^toml: line (\d+) \(last key "([^"]+)"\): (.*)$`)

type valueError struct {
	key toml.Key
	msg string
}

func (e *valueError) Error() string { return e.key.String() + ": " + e.msg }

// BadValue is a validation error about the value at key.
func BadValue(msg string, key ...string) error {
	return &valueError{key: toml.Key(key), msg: msg}
}

func (c *Config) validate() error {
	if c.Ledger.PackThreshold < 1 {
		return BadValue("must be at least 1", "ledger", "pack_threshold")
	}
	if c.Ledger.AutoMaintenance < 0 {
		return BadValue("must be 0 (off) or a positive count", "ledger", "auto_maintenance")
	}
	if c.Sync.Remote == "" || strings.ContainsAny(c.Sync.Remote, " \t\n:") {
		return BadValue(fmt.Sprintf("%q is not a remote name", c.Sync.Remote), "sync", "remote")
	}
	if c.Fork.MaxBranches < 0 {
		return BadValue(fmt.Sprintf("%d is not a branch count", c.Fork.MaxBranches), "fork", "max_branches")
	}
	if c.Claims.Remote != "" && (strings.ContainsAny(c.Claims.Remote, " \t\n:") || strings.HasPrefix(c.Claims.Remote, "-")) {
		return BadValue(fmt.Sprintf("%q is not a remote name", c.Claims.Remote), "claims", "remote")
	}
	for _, p := range []struct{ key, v string }{{"contract_block", c.Plans.ContractBlock}, {"agent_instructions", c.Plans.AgentInstructions}} {
		if _, err := repopath.Clean(p.v); p.v != "" && err != nil {
			return BadValue(fmt.Sprintf("%q must be a path inside the repository: %v", p.v, err), "plans", p.key)
		}
	}
	for i, p := range c.Worktree.Copy {
		if _, err := repopath.Clean(p); err != nil {
			return BadValue(fmt.Sprintf("entry %d (%q) must be a path inside the repository: %v", i+1, p, err), "worktree", "copy")
		}
	}
	for k := range c.Worktree.Env {
		if k == "" || strings.ContainsAny(k, "= \t\n") {
			return BadValue(fmt.Sprintf("%q is not an environment variable name", k), "worktree", "env")
		}
	}
	for name, p := range c.Plugins {
		if !pluginName.MatchString(name) {
			return BadValue("plugin names are lowercase letters, digits and dashes", "plugins", name)
		}
		if p.SHA256 != "" && !sha256Hex.MatchString(p.SHA256) {
			return BadValue(fmt.Sprintf("%q is not a sha256 in hex", p.SHA256), "plugins", name, "sha256")
		}
	}
	if d, err := time.ParseDuration(c.Sessions.IdleExit); err != nil || d <= 0 {
		return BadValue(fmt.Sprintf("%q is not a duration with a unit, such as \"10m\"", c.Sessions.IdleExit), "sessions", "idle_exit")
	}
	for _, k := range []struct{ key, v string }{{"timeout", c.Dispatch.Timeout}, {"gate_timeout", c.Dispatch.GateTimeout}} {
		if d, err := time.ParseDuration(k.v); err != nil || d <= 0 {
			return BadValue(fmt.Sprintf("%q is not a duration with a unit, such as \"40m\"", k.v), "dispatch", k.key)
		}
	}
	if d, err := time.ParseDuration(c.Review.MutationBudget); err != nil || d < 0 {
		return BadValue(fmt.Sprintf("%q is not a duration with a unit, such as \"60s\"", c.Review.MutationBudget), "review", "mutation_budget")
	}
	if d, err := time.ParseDuration(c.Dispatch.RateLimitWait); err != nil || d < 0 {
		return BadValue(fmt.Sprintf("%q is not a duration with a unit", c.Dispatch.RateLimitWait), "dispatch", "rate_limit_wait")
	}
	for name, p := range c.Profiles {
		if err := p.validate(); err != nil {
			return BadValue(err.Error(), "profiles", name)
		}
	}
	for i, f := range c.Dispatch.Fallback {
		if _, ok := c.Profiles[f]; !ok {
			return BadValue(fmt.Sprintf("entry %d names no [profiles.%s]", i+1, f), "dispatch", "fallback")
		}
	}
	if c.Dispatch.MaxParallel < 1 {
		return BadValue("must be at least 1", "dispatch", "max_parallel")
	}
	if c.PR.Repo != "" && strings.Count(c.PR.Repo, "/") != 1 {
		return BadValue(fmt.Sprintf("%q is not OWNER/NAME", c.PR.Repo), "pr", "repo")
	}
	for i, n := range c.Gates.PassEnv {
		if err := c.checkPassEnv(n); err != nil {
			return BadValue(fmt.Sprintf("entry %d (%q) %v", i+1, n, err), "gates", "pass_env")
		}
	}
	if c.Plans.AgentInstructions == "" {
		return BadValue("must name the file holding the definition of done", "plans", "agent_instructions")
	}
	return nil
}

var passEnvName = lazyre.New(`^[A-Za-z_][A-Za-z0-9_]*\*?$`)

// checkPassEnv refuses a pass_env entry that is no variable name or that
// would hand our own credentials to a command an agent may have written.
func (c *Config) checkPassEnv(name string) error {
	if !passEnvName.MatchString(name) {
		return fmt.Errorf("is not a variable name (NAME, or PREFIX* for all starting with PREFIX)")
	}
	own := append([]string{}, secrets.WellKnown...)
	for _, p := range c.Profiles {
		own = append(own, p.KeyEnv)
	}
	for _, o := range own {
		if o != "" && (o == name || strings.HasPrefix(o, strings.TrimSuffix(name, "*")) && strings.HasSuffix(name, "*")) {
			return fmt.Errorf("would pass $%s, which holds a credential of agentproto or of a profile: never passed", o)
		}
	}
	return nil
}

// lineOf finds the line where key is set, reading the TOML text the simple
// way: table headers and "key =" lines. It returns 0 when it cannot tell.
func lineOf(text []byte, key toml.Key) int {
	if len(key) == 0 {
		return 0
	}
	table := ""
	want := key.String()
	for i, raw := range strings.Split(string(text), "\n") {
		line := strings.TrimSpace(raw)
		if strings.HasPrefix(line, "[") {
			name := strings.Trim(line, "[] ")
			if j := strings.Index(name, "]"); j >= 0 {
				name = name[:j]
			}
			table = strings.TrimSpace(name)
			if table == want {
				return i + 1
			}
			continue
		}
		k, _, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		k = strings.Trim(strings.TrimSpace(k), `"`)
		full := k
		if table != "" {
			full = table + "." + k
		}
		if full == want || strings.HasPrefix(want, full+".") {
			return i + 1
		}
	}
	return 0
}
