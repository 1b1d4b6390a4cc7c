package profiles

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/plugins/catalog"
)

// Launch is how one session of an adapter is configured: the adapter, the
// profile it comes from (if any) and options the user gave on the command
// line, which win over both.
type Launch struct {
	Adapter string
	Profile string
	User    map[string]string
}

// Options merges the options of a launch: [plugins.ADAPTER] options, then
// the profile's, then the user's.
func (l Launch) Options(cfg config.Config) map[string]string {
	out := map[string]string{}
	for _, layer := range []map[string]string{cfg.Plugins[l.Adapter].Options, l.profileOptions(cfg), l.User} {
		for k, v := range layer {
			out[k] = v
		}
	}
	return out
}

func (l Launch) profileOptions(cfg config.Config) map[string]string {
	if l.Profile == "" {
		return nil
	}
	return cfg.Profiles[l.Profile].Options
}

// CommittedLayers are the sections of committed config whose options the
// launch uses: [plugins.ADAPTER] and [profiles.NAME] of a tracked
// agentproto.toml, a profile of this clone's own file excepted. A section
// all of whose options the user overrides is not used and not listed.
func (l Launch) CommittedLayers(cfg config.Config, root, common string) ([]catalog.OptionLayer, error) {
	if !catalog.ConfigCommitted(root) {
		return nil, nil
	}
	local, err := localProfileNames(common)
	if err != nil {
		return nil, err
	}
	var out []catalog.OptionLayer
	add := func(section string, opts, over map[string]string) {
		for k := range opts {
			if _, overridden := over[k]; !overridden {
				out = append(out, catalog.OptionLayer{Section: section, Adapter: l.Adapter, Options: opts})
				return
			}
		}
	}
	over := map[string]string{}
	for k, v := range l.User {
		over[k] = v
	}
	if l.Profile != "" && !local[l.Profile] {
		add("profiles."+l.Profile, cfg.Profiles[l.Profile].Options, over)
	}
	for k, v := range l.profileOptions(cfg) {
		over[k] = v
	}
	add("plugins."+l.Adapter, cfg.Plugins[l.Adapter].Options, over)
	return out, nil
}

// RequireTrust refuses, exit 5, a launch that would use committed options
// not trusted on this machine; dir is where the session runs, and trustDir
// what the trust command is to hash ("" for the repository itself).
func (l Launch) RequireTrust(cfg config.Config, root, common, dir, trustDir string) error {
	layers, err := l.CommittedLayers(cfg, root, common)
	if err != nil {
		return err
	}
	return catalog.RequireOptionsTrust(root, dir, trustDir, layers)
}

// localProfileNames are the profiles of this clone's own file, which
// replace committed ones of the same name.
func localProfileNames(common string) (map[string]bool, error) {
	names := map[string]bool{}
	if common == "" {
		return names, nil
	}
	path := filepath.Join(common, config.LocalProfiles)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return names, nil
	}
	if err != nil {
		return nil, err
	}
	var local struct {
		Profiles map[string]config.Profile `toml:"profiles"`
	}
	if err := config.DecodeStrict(b, path, &local); err != nil {
		return nil, err
	}
	for n := range local.Profiles {
		names[n] = true
	}
	return names, nil
}
