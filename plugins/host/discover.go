package host

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/fault"
)

// BinaryPrefix names adapter binaries found on PATH:
// agentproto-adapter-NAME serves adapter NAME.
const BinaryPrefix = "agentproto-adapter-"

// Found is an adapter agentproto knows about.
type Found struct {
	Spec
	Source string // "config" or "path"
}

// searchDirs are PATH, then the directory of the running binary, so that
// adapters built beside git-agentproto are found without installing them.
func searchDirs() []string {
	dirs := filepath.SplitList(os.Getenv("PATH"))
	if exe, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Dir(exe))
	}
	return dirs
}

// Discover finds adapter name: [plugins.NAME] path in config (relative to
// root), else agentproto-adapter-NAME on PATH or beside this binary.
func Discover(name string, plugins map[string]config.Plugin, root string) (Found, error) {
	p := plugins[name]
	if p.Path != "" {
		path := p.Path
		if !filepath.IsAbs(path) {
			path = filepath.Join(root, path)
		}
		if _, err := os.Stat(path); err != nil {
			return Found{}, fault.Invalidf("adapter %s: [plugins.%s] path %s: %v", name, name, p.Path, err)
		}
		return Found{Spec: Spec{Name: name, Path: path, SHA256: p.SHA256}, Source: "config"}, nil
	}
	for _, d := range searchDirs() {
		path := filepath.Join(d, BinaryPrefix+name)
		if fi, err := os.Stat(path); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return Found{Spec: Spec{Name: name, Path: path, SHA256: p.SHA256}, Source: "path"}, nil
		}
	}
	if lp, err := exec.LookPath(BinaryPrefix + name); err == nil {
		return Found{Spec: Spec{Name: name, Path: lp, SHA256: p.SHA256}, Source: "path"}, nil
	}
	return Found{}, fault.Invalidf("no adapter %q: configure [plugins.%s] path or put %s%s on PATH", name, name, BinaryPrefix, name)
}

// List returns every adapter in config or on PATH, by name.
func List(plugins map[string]config.Plugin, root string) []Found {
	names := map[string]bool{}
	for n := range plugins {
		names[n] = true
	}
	for _, d := range searchDirs() {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if n, ok := strings.CutPrefix(e.Name(), BinaryPrefix); ok && n != "" {
				names[n] = true
			}
		}
	}
	var out []Found
	for n := range names {
		if f, err := Discover(n, plugins, root); err == nil {
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
