package config

import (
	"fmt"
	"strings"

	"github.com/agentproto/agentproto/internal/lazyre"
	"github.com/agentproto/agentproto/internal/names"
	"github.com/agentproto/agentproto/internal/repopath"
	"github.com/agentproto/agentproto/internal/secrets"
)

var envName = lazyre.New(`^[A-Z_][A-Z0-9_]*$`)

func (p Profile) validate() error {
	if !names.Dashed(p.Adapter, 1, 63) {
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
	if (p.ModelSwitch == "") != (p.ModelSwitchExpect == "") {
		return fmt.Errorf("model_switch and model_switch_expect go together: the switch is only trusted once its confirmation line is seen")
	}
	if strings.ContainsAny(p.ModelSwitch+p.ModelSwitchExpect, "\r\n") {
		return fmt.Errorf("model_switch and model_switch_expect are one line each")
	}
	if p.ErrorLog != "" && !strings.HasPrefix(p.ErrorLog, "/") && !strings.HasPrefix(p.ErrorLog, "~/") {
		return fmt.Errorf("error_log %q must be an absolute path or start with ~/", p.ErrorLog)
	}
	if p.WedgeAfter.Duration < 0 {
		return fmt.Errorf("wedge_after %s must be a positive duration", p.WedgeAfter)
	}
	if err := checkSandboxPaths(p.Writable); err != nil {
		return fmt.Errorf("writable: %v", err)
	}
	return nil
}

var (
	sha256Hex = lazyre.New(`^[0-9a-fA-F]{64}$`)
)

func (c *Config) validate() error {
	if err := c.Sandbox.validate(); err != nil {
		return err
	}
	if err := c.Reactions.validate(); err != nil {
		return err
	}
	if err := c.validateSpend(); err != nil {
		return err
	}
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
	if err := c.Worktree.validateIsolation(); err != nil {
		return err
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
		if !names.Dashed(name, 1, 63) {
			return BadValue("plugin names are lowercase letters, digits and dashes", "plugins", name)
		}
		if p.SHA256 != "" && !sha256Hex.MatchString(p.SHA256) {
			return BadValue(fmt.Sprintf("%q is not a sha256 in hex", p.SHA256), "plugins", name, "sha256")
		}
	}
	if c.Sessions.IdleExit.Duration <= 0 {
		return BadValue("must be longer than zero, such as \"10m\"", "sessions", "idle_exit")
	}
	if c.Sessions.ReleaseAfter.Duration < 0 {
		return BadValue("must be \"0s\" (never) or a positive duration, such as \"10s\"", "sessions", "release_after")
	}
	if c.Sessions.WedgeAfter.Duration < 0 {
		return BadValue("must be \"0s\" (never) or a positive duration, such as \"10m\"", "sessions", "wedge_after")
	}
	for _, k := range []struct {
		key string
		v   Duration
	}{{"timeout", c.Dispatch.Timeout}, {"gate_timeout", c.Dispatch.GateTimeout}} {
		if k.v.Duration <= 0 {
			return BadValue("must be longer than zero, such as \"40m\"", "dispatch", k.key)
		}
	}
	if c.Worktree.HookTimeout.Duration <= 0 {
		return BadValue("must be longer than zero, such as \"10m\"", "worktree", "hook_timeout")
	}
	if c.Review.MutationBudget.Duration < 0 {
		return BadValue("must not be negative (\"0s\" turns the mutation smoke off)", "review", "mutation_budget")
	}
	if c.Dispatch.RateLimitWait.Duration < 0 {
		return BadValue("must not be negative", "dispatch", "rate_limit_wait")
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
	for i, n := range c.Sessions.PassEnv {
		if err := c.checkAgentPassEnv(n); err != nil {
			return BadValue(fmt.Sprintf("entry %d (%q) %v", i+1, n, err), "sessions", "pass_env")
		}
	}
	if c.Plans.AgentInstructions == "" {
		return BadValue("must name the file holding the definition of done", "plans", "agent_instructions")
	}
	return nil
}

// checkAgentPassEnv is checkPassEnv for what agents get, which is
// stricter: an agent's output reaches the ledger and the pull request,
// so a name that says it holds a secret is refused too, even named
// exactly (a gate may need one; an agent never does).
func (c *Config) checkAgentPassEnv(name string) error {
	if err := c.checkPassEnv(name); err != nil {
		return err
	}
	if secrets.LooksSecret(strings.TrimSuffix(name, "*")) {
		return fmt.Errorf("names a secret (*_TOKEN, *_KEY, *_SECRET, *PASSWORD*...): agents never get one")
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
