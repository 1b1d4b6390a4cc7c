package catalog

import "github.com/agentproto/agentproto/internal/fault"

// NotifyLayer is [policies] notify as a command to trust: the daemon runs
// it with sh -c, so from a tracked agentproto.toml (which any commit, an
// agent's included, may have written) it is code like a hook.
func NotifyLayer(command string) OptionLayer {
	return OptionLayer{Section: "policies", Adapter: "notify", Options: map[string]string{"notify": command}}
}

// RequireNotifyTrust refuses a committed notify command not trusted on
// this machine, naming it and the command that trusts it.
func RequireNotifyTrust(worktree, command string) error {
	if command == "" || !ConfigCommitted(worktree) {
		return nil
	}
	c, err := InspectOptions(worktree, worktree, NotifyLayer(command))
	if err != nil || c.Trusted {
		return err
	}
	return fault.Refusedf("[policies] notify comes from agentproto.toml and is not trusted on this machine (the daemon runs it):\n%sreview it, then run: git agentproto policy trust", c.Describe())
}
