package launch

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/plugins/catalog"
	"github.com/agentproto/agentproto/plugins/probe"
	"github.com/agentproto/agentproto/plugins/vocab"
)

// Plugin is one adapter agentproto can find, with the state of its pin and
// of its trust on this machine.
type Plugin struct {
	Name     string `json:"name"`
	Path     string `json:"path"`
	Source   string `json:"source"`
	Pinned   bool   `json:"pinned"`
	Checksum string `json:"checksum"` // ok, mismatch, unpinned
	Trusted  bool   `json:"trusted"`
}

// Plugins lists the adapters of the config and of PATH; a pinned binary is
// hashed again, so a changed one shows as a mismatch before anything runs it.
func Plugins(cfg config.Config, root string) []Plugin {
	rows := []Plugin{}
	for _, fd := range catalog.List(cfg.Plugins, root) {
		r := Plugin{Name: fd.Name, Path: fd.Path, Source: fd.Source, Pinned: fd.SHA256 != "", Checksum: "unpinned", Trusted: fd.Trusted}
		if r.Pinned {
			sum, err := catalog.FileSHA256(fd.Path)
			r.Checksum = "ok"
			if err != nil || !strings.EqualFold(sum, fd.SHA256) {
				r.Checksum = "mismatch"
			}
		}
		rows = append(rows, r)
	}
	return rows
}

// Describe launches the adapter name once, with only PATH and HOME of the
// environment, and returns what it declares. An adapter of the config runs
// only once trusted (Discover refuses it otherwise).
func Describe(cfg config.Config, root, name string) (catalog.Found, vocab.Info, error) {
	fd, err := catalog.Discover(name, cfg.Plugins, root)
	if err != nil {
		return fd, vocab.Info{}, err
	}
	info, err := probe.Describe(context.Background(), fd.Spec, probe.PathAndHome())
	return fd, info, err
}

// Pin records the sha256 of adapter name's binary as [plugins.NAME] sha256
// in the work tree's agentproto.toml and returns it. Pinning runs nothing.
func Pin(cfg config.Config, workTree, name string) (string, error) {
	if workTree == "" {
		return "", fault.Invalidf("plugin pin edits %s; this repository is bare", config.FileName)
	}
	fd, err := catalog.Locate(name, cfg.Plugins, workTree)
	if err != nil {
		return "", err
	}
	sum, err := catalog.FileSHA256(fd.Path)
	if err != nil {
		return "", err
	}
	return sum, config.Pin(workTree, name, sum)
}

// PluginTrust is what trusting an adapter covers: its binary, when the
// config names it, and the options of a committed agentproto.toml, each
// with whether it is trusted and whether this call recorded it.
type PluginTrust struct {
	catalog.Found
	Recorded        bool
	Options         catalog.OptionsCheck
	OptionsRecorded bool
}

// TrustPlugin inspects what agentproto.toml makes adapter name run — the
// binary and the options, with the files of dir their words name (dir ""
// is the repository's top) — and, unless show, trusts on this machine what
// is not trusted yet.
func TrustPlugin(cfg config.Config, top, name, dir string, show bool) (*PluginTrust, error) {
	fd, err := catalog.Locate(name, cfg.Plugins, top)
	if err != nil {
		return nil, err
	}
	t := &PluginTrust{Found: fd, Options: catalog.OptionsCheck{Trusted: true}}
	if catalog.ConfigCommitted(top) {
		layer := catalog.OptionLayer{Section: "plugins." + fd.Name, Adapter: fd.Name, Options: cfg.Plugins[fd.Name].Options}
		if t.Options, err = catalog.InspectOptions(top, filesDir(dir, top), layer); err != nil {
			return nil, err
		}
	}
	if show {
		return t, nil
	}
	if !t.Trusted {
		if t.Recorded, err = catalog.Trust(t.Found, top); err != nil {
			return nil, err
		}
		t.Trusted = true
	}
	if !t.Options.Trusted {
		if t.OptionsRecorded, err = catalog.TrustOptions(top, t.Options); err != nil {
			return nil, err
		}
		t.Options.Trusted = true
	}
	return t, nil
}

// filesDir is where the files the options name are hashed: dir when given,
// else the repository's top.
func filesDir(dir, top string) string {
	if dir == "" {
		return top
	}
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}
