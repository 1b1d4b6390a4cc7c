package fork

import (
	"errors"
	"os/exec"
	"strings"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitrepo"
)

// ModeConfigKey is the local git config switch of the fork canary. It
// lives in this clone's config, never in a file of the repository, which
// an agent could edit.
const ModeConfigKey = "agentproto.fork.mode"

// Modes of the canary.
const (
	ModeOff    = "off"
	ModeDryRun = "dry-run"
	ModeOn     = "on"
)

// Mode reads this clone's fork mode from its local git config; absent is
// off. A value that is none of the three is an error, never a guess.
func Mode(repo *gitrepo.Repo) (string, error) {
	values, err := repo.LocalConfigValues(ModeConfigKey)
	if err != nil {
		var ge *gitrepo.GitError
		var ee *exec.ExitError
		if errors.As(err, &ge) || errors.As(err, &ee) {
			return ModeOff, nil // a configuration git cannot read leaves forks off
		}
		return ModeOff, err
	}
	if len(values) == 0 {
		return ModeOff, nil
	}
	switch m := strings.TrimSpace(values[len(values)-1]); m { // the last one wins, as git reads it
	case ModeOff, ModeDryRun, ModeOn:
		return m, nil
	default:
		return ModeOff, fault.Invalidf("git config %s is %q; it must be off, dry-run or on (forks stay off until it is)", ModeConfigKey, m)
	}
}

// requireMode refuses what this clone's mode does not allow: nothing when
// off, only validation when dry-run.
func requireMode(repo *gitrepo.Repo, dryRun bool) (string, error) {
	mode, err := Mode(repo)
	if err != nil {
		return mode, err
	}
	switch {
	case mode == ModeOff:
		return mode, fault.Refusedf("forks are off on this clone; its operator enables the canary with: git config --local %s dry-run (validate and record only) or on", ModeConfigKey)
	case mode == ModeDryRun && !dryRun:
		return mode, fault.Refusedf("this clone's fork mode is dry-run: admissions go through fork admit --dry-run, which starts nothing (git config --local %s on to run branches)", ModeConfigKey)
	}
	return mode, nil
}
