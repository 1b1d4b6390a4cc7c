package config

// Template is the agentproto.toml that `git agentproto init` writes when the
// repository has none. Every key is commented out at its default value.
const Template = `# agentproto.toml: configuration of git agentproto for this repository.
# Every key is optional; the values shown commented out are the defaults.
# Unknown keys are errors: check with 'git agentproto config check'.

[ledger]
# Appends of at least this many events are written as one pack file.
# pack_threshold = 16
# Loose ledger objects written before they are packed (git repack -d);
# 0 turns automatic packing off.
# auto_maintenance = 2000

[sync]
# Remote used by 'git agentproto sync' when none is named.
# remote = "origin"
# Push the ledger refs along with every 'git push' (needs the pre-push hook).
# push_on_pre_push = false

[claims]
# Remote that arbitrates 'git agentproto todo claim' across clones; empty:
# the remote 'git agentproto init' gave the ledger fetch refspec.
# remote = ""

[plans]
# Default gate of new plans: a command whose exit code says "done".
# gate = "make test"
# A repository file replacing the built-in brief contract block.
# contract_block = ""
# The file holding the definition of done; briefs point to it.
# agent_instructions = "AGENTS.md"

[worktree]
# Where worktrees live: <root>/<repo>/<slug> (default ~/.agentproto/worktrees,
# or $AGENTPROTO_WORKTREES_ROOT).
# root = ""
# Default base revision (else origin/HEAD, else HEAD).
# base = ""
# Hooks: read from this file AS COMMITTED at the base revision, and run only
# after 'git agentproto trust' on this machine.
# setup = ["make deps"]
# copy = [".env"]
# env = { GOFLAGS = "-mod=mod" }
# teardown = []
# Bound of one setup or teardown command; past it the command is ended with
# every process it started, and provisioning fails.
# hook_timeout = "10m"
# Initialise the submodules of new worktrees (git submodule update --init).
# submodules = false
# When a session gets its own worktree: "on-request", "always" (refuse one
# without), "never" (refuse to make one); $AGENTPROTO_WORKTREES_ISOLATION wins.
# isolation = "on-request"

# Executor adapters: agentproto-adapter-NAME on PATH, or configured here.
# [plugins.aider]
# path = "/usr/local/bin/agentproto-adapter-exec"
# sha256 = "..."              # pin the binary (git agentproto plugin pin aider)
# options = { command = "aider --yes --message-file {prompt}" }

[sessions]
# The sessions daemon stops after this long with nothing to do (no turn in
# progress, no request in flight); git agentproto sessions stop stops it now.
# idle_exit = "10m"
# A session is called wedged (a fault and a warning, its cause read from the
# profile's error_log) when it awaits input while its agent keeps working,
# or runs while nothing moves, for this long; "0s": never.
# wedge_after = "10m"
# More variables agents get beyond PATH, HOME and locale (never secrets):
# pass_env = ["GOCACHE", "GOMODCACHE", "GOFLAGS", "VIRTUAL_ENV"]

[dispatch]
# Adapter for work packages whose [[wp]] entry names none.
# adapter = "claude-code"
# max_parallel = 4
# timeout = "40m"          # wait for a wave's turns
# gate_timeout = "30m"     # one gate run
# Profiles tried in order when a provider is dead (credit, model, auth, outage).
# fallback = ["cheap", "mid", "subscription"]
# rate_limit_wait = "30s"  # first backoff after a rate limit

# Executor profiles: no secrets here. key_env NAMES the variable holding a key;
# its value is read from the environment at launch and never stored or logged.
# Local overrides: <git common dir>/agentproto/profiles.toml.
# [profiles.cheap]
# adapter = "codex"
# model = "gpt-5-mini"
# auth = "api-key"
# key_env = "OPENAI_API_KEY"

[policies]
# Command run by the notify policy action (sh -c).
# notify = "notify-send agentproto \"$AGENTPROTO_EVENT $AGENTPROTO_SESSION\""

[e2e]
# Live commands run against the integration worktree.
# commands = ["make e2e"]

[gates]
# Gates, e2e commands and worktree hooks run with what a build needs (PATH,
# HOME, locale, TMPDIR, GIT_*, the Go, Rust, Node, Java and Python homes),
# never agentproto's tokens or the profiles' keys; their output is scrubbed
# of secrets before it is recorded. More variables they need: NAME, or
# PREFIX* for every variable starting with PREFIX (SSH_AUTH_SOCK, say, for
# hooks that fetch over ssh: it is not passed by default).
# pass_env = ["SSH_AUTH_SOCK", "MYTOOL_*"]

[pr]
# remote = "origin"         # receives the integration branch
# repo = "OWNER/NAME"       # overrides what the remote URL says
# host = "github.com"
# draft = false
`
