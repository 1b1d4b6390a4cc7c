package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentproto/agentproto/internal/fault"
)

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
