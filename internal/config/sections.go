package config

// Review configures review.
type Review struct {
	// MutationBudget bounds the mutation smoke of one change ("0s": off).
	MutationBudget Duration `toml:"mutation_budget" json:"mutation_budget"`
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
	// ModelSwitch is the prompt that selects the model of an agent whose
	// model is chosen by a prompt ("/model {model}"); it is sent alone
	// before the ping and its turn must print ModelSwitchExpect
	// ("Model switched to: {model}").
	ModelSwitch       string `toml:"model_switch" json:"model_switch,omitempty"`
	ModelSwitchExpect string `toml:"model_switch_expect" json:"model_switch_expect,omitempty"`
	// ErrorLog is the agent's own error log ("~/.hermes/logs/errors.log"),
	// read to tell why a turn came back empty or a ping failed.
	ErrorLog string `toml:"error_log" json:"error_log,omitempty"`
	// WedgeAfter overrides [sessions] wedge_after for this profile's
	// sessions (unset: the [sessions] value).
	WedgeAfter Duration `toml:"wedge_after" json:"wedge_after,omitzero"`
	// Writable adds paths this profile's agents may write in the sandbox
	// (its CLI's state directory); it never removes a denial.
	Writable []string `toml:"writable" json:"writable,omitempty"`
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
	// Timeout bounds the wait for a wave's turns ("40m").
	Timeout Duration `toml:"timeout" json:"timeout"`
	// GateTimeout bounds one gate run.
	GateTimeout Duration `toml:"gate_timeout" json:"gate_timeout"`
	// Fallback lists profiles in the order dispatch tries them when a
	// provider is dead (no credit, wrong model, auth, unavailable).
	Fallback []string `toml:"fallback" json:"fallback"`
	// RateLimitWait is the first backoff after a rate_limited fault.
	RateLimitWait Duration `toml:"rate_limit_wait" json:"rate_limit_wait"`
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
	// IdleExit: the daemon stops after this long with no turn in
	// progress, no request in flight and no idle policy waiting ("10m").
	IdleExit Duration `toml:"idle_exit" json:"idle_exit"`
	// WedgeAfter: a session is called wedged when its state and what its
	// agent is seen doing disagree for this long ("10m"; "0s": never).
	WedgeAfter Duration `toml:"wedge_after" json:"wedge_after"`
	// ReleaseAfter: a settled session whose adapter can resume it in a new
	// process lets its adapter process go after this long idle ("10s";
	// "0s": never), so settled sessions hold no memory; the next prompt
	// starts a new one.
	ReleaseAfter Duration `toml:"release_after" json:"release_after"`
	// PassEnv names variables of the caller's environment that executor
	// sessions get beyond PATH, HOME and locale: NAME, or PREFIX* for
	// every variable starting with PREFIX (GOCACHE, GOFLAGS, VIRTUAL_ENV).
	// Never a secret: a secret-shaped name is refused, and a variable
	// whose value holds a known secret is left out.
	PassEnv []string `toml:"pass_env" json:"pass_env,omitempty"`
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
	// HookTimeout bounds one setup or teardown command ("10m"); past it
	// the command is ended with every process it started, and fails.
	// Read from the configuration in force, not from the base's file.
	HookTimeout Duration `toml:"hook_timeout" json:"hook_timeout"`
	// Submodules: new worktrees initialise and update their submodules
	// (git submodule update --init --recursive); else they stay empty
	// directories, as git worktree add leaves them.
	Submodules bool `toml:"submodules" json:"submodules"`
	// Isolation says when a session gets its own worktree: "on-request"
	// (the default: when asked), "always" (a session runs only in an
	// agentproto worktree) or "never" (none is made).
	// $AGENTPROTO_WORKTREES_ISOLATION wins over it.
	Isolation string `toml:"isolation" json:"isolation,omitempty"`
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
