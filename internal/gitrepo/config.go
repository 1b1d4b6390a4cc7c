package gitrepo

import (
	"errors"
	"strings"
)

// ConfigValues returns every value of key in git's configuration, in
// the order git reads them (the last one wins for a single-valued key);
// none when the key is unset.
func (r *Repo) ConfigValues(key string) ([]string, error) {
	return r.configValues("config", "-z", "--get-all", key)
}

// LocalConfigValues is ConfigValues reading the repository's own
// configuration file only: a switch that only this clone's operator
// sets, never the user's or the system's configuration.
func (r *Repo) LocalConfigValues(key string) ([]string, error) {
	return r.configValues("config", "-z", "--local", "--get-all", key)
}

func (r *Repo) configValues(args ...string) ([]string, error) {
	out, err := r.Git(args...)
	if err != nil {
		// An unset key makes git config exit 1 without a word.
		var ge *GitError
		if errors.As(err, &ge) && ge.Stderr == "" {
			return nil, nil
		}
		return nil, err
	}
	values := strings.Split(string(out), "\x00")
	return values[:len(values)-1], nil // each value ends with NUL
}

// AddConfigValue adds value to key in the repository's own
// configuration, keeping the values it has.
func (r *Repo) AddConfigValue(key, value string) error {
	_, err := r.Git("config", "--add", key, value)
	return err
}

// RemoteURL returns the URL of the remote called name; an error when
// there is no such remote.
func (r *Repo) RemoteURL(name string) (string, error) {
	out, err := r.Git("remote", "get-url", name)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// RemoteRefs asks the remote (a name or a URL) for its refs matching
// patterns, as git ls-remote matches them (by whole trailing
// components), in the order it lists them.
func (r *Repo) RemoteRefs(remote string, patterns ...string) ([]Ref, error) {
	out, err := r.Git(append([]string{"ls-remote", "--", remote}, patterns...)...)
	if err != nil {
		return nil, err
	}
	return parseRefs(string(out), "\t"), nil
}
