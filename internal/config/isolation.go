package config

import (
	"fmt"

	"github.com/agentproto/agentproto/internal/fault"
)

// Isolation policies of [worktree] isolation.
const (
	IsolationOnRequest = "on-request"
	IsolationAlways    = "always"
	IsolationNever     = "never"
)

// IsolationEnv overrides [worktree] isolation for one run.
const IsolationEnv = "AGENTPROTO_WORKTREES_ISOLATION"

// IsolationMode is the isolation policy in force: $AGENTPROTO_WORKTREES_ISOLATION
// when set, else the configured one, else on-request.
func (w Worktree) IsolationMode(getenv func(string) string) (string, error) {
	if v := getenv(IsolationEnv); v != "" {
		if !validIsolation(v) {
			return "", fault.Invalidf("$%s is %q; it must be on-request, always or never", IsolationEnv, v)
		}
		return v, nil
	}
	if w.Isolation == "" {
		return IsolationOnRequest, nil
	}
	return w.Isolation, nil
}

func validIsolation(v string) bool {
	return v == IsolationOnRequest || v == IsolationAlways || v == IsolationNever
}

func (w Worktree) validateIsolation() error {
	if w.Isolation != "" && !validIsolation(w.Isolation) {
		return BadValue(fmt.Sprintf("%q must be on-request, always or never", w.Isolation), "worktree", "isolation")
	}
	return nil
}

// NeedsOwnWorktree refuses, under isolation "never", a step that runs only
// in a worktree of its own (dispatch, the scout, the reviewer, a fork
// branch); what names the step.
func (w Worktree) NeedsOwnWorktree(getenv func(string) string, what string) error {
	mode, err := w.IsolationMode(getenv)
	if err != nil {
		return err
	}
	if mode == IsolationNever {
		return fault.Refusedf("worktree isolation is \"never\" ([worktree] isolation or $%s): %s runs only in a worktree of its own, so it does not run", IsolationEnv, what)
	}
	return nil
}
