package profiles

import (
	"path/filepath"

	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/plugins/catalog"
)

// CommittedOptions returns profile name and what trusting its committed
// options covers: the options of [profiles.NAME] in a tracked
// agentproto.toml of root, with the files their words name hashed under
// filesDir (root when empty). A profile with none is trusted as it is.
func CommittedOptions(cfg config.Config, root, common, name, filesDir string) (config.Profile, catalog.OptionsCheck, error) {
	c := catalog.OptionsCheck{Trusted: true}
	p, err := Resolve(cfg, name)
	if err != nil {
		return p, c, err
	}
	launch := Launch{Adapter: p.Adapter, Profile: name}
	layers, err := launch.CommittedLayers(cfg, root, common)
	if err != nil {
		return p, c, err
	}
	for _, l := range layers {
		if l.Section != "profiles."+name {
			continue
		}
		files := root
		if filesDir != "" {
			if files, err = filepath.Abs(filesDir); err != nil {
				return p, c, err
			}
		}
		if c, err = catalog.InspectOptions(root, files, l); err != nil {
			return p, c, err
		}
	}
	return p, c, nil
}
