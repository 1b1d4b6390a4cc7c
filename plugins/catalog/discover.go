package catalog

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentproto/agentproto/internal/fault"
)

// BinaryPrefix names adapter binaries found on PATH:
// agentproto-adapter-NAME serves adapter NAME.
const BinaryPrefix = "agentproto-adapter-"

// Where an adapter was found.
const (
	SourceConfig = "config" // [plugins.NAME] path in agentproto.toml
	SourcePath   = "path"   // agentproto-adapter-NAME on PATH
)

// Found is an adapter agentproto knows about.
type Found struct {
	Spec
	Source string // SourceConfig or SourcePath
	// Digest is the sha256 of a config adapter's binary as found, and
	// Trusted says whether those bytes are trusted on this machine; an
	// adapter on PATH is always trusted.
	Digest  string
	Trusted bool
}

// ConfigFile is the repository's config file, named in messages: the
// caller reads it and gives this package what it says (Pins, options).
const ConfigFile = "agentproto.toml"

// Pins is what the repository's config says of adapters, [plugins.NAME]
// path and sha256: passed by the caller so that launching reads no config.
type Pins interface {
	// Pin returns the configured path and sha256 of adapter name, "" when
	// not set.
	Pin(name string) (path, sha256 string)
	// Names lists the adapters the config names.
	Names() []string
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
// root), else agentproto-adapter-NAME on PATH or beside this binary. A
// binary named by config runs only once trusted on this machine (see
// Trust): an untrusted one is refused, exit 5, before anything runs it.
// For a trusted one without a pinned sha256 the spec carries the trusted
// sum, so that the launch checks the very bytes that were trusted.
func Discover(name string, plugins Pins, root string) (Found, error) {
	f, err := Locate(name, plugins, root)
	if err != nil || f.Source != SourceConfig {
		return f, err
	}
	if !f.Trusted {
		configured, _ := plugins.Pin(name)
		return f, fault.Refusedf("adapter %s: [plugins.%s] path = %q comes from %s, and its binary %s (sha256 %.16s) is not trusted on this machine:\nreview it, then run: git agentproto plugin trust %s", name, name, configured, ConfigFile, f.Path, f.Digest, name)
	}
	if f.SHA256 == "" {
		f.SHA256 = f.Digest
	}
	return f, nil
}

// Locate finds adapter name as Discover does, and says whether it is
// trusted, without refusing it: for listing, pinning and trusting.
func Locate(name string, plugins Pins, root string) (Found, error) {
	var p struct{ Path, SHA256 string }
	if plugins != nil {
		p.Path, p.SHA256 = plugins.Pin(name)
	}
	if p.Path != "" {
		path := p.Path
		if !filepath.IsAbs(path) {
			path = filepath.Join(root, path)
		}
		fi, err := os.Stat(path)
		if err != nil {
			return Found{}, fault.Invalidf("adapter %s: [plugins.%s] path %s: %v", name, name, p.Path, err)
		}
		if !fi.Mode().IsRegular() {
			return Found{}, fault.Invalidf("adapter %s: [plugins.%s] path %s is not a regular file", name, name, p.Path)
		}
		sum, err := FileSHA256(path)
		if err != nil {
			return Found{}, fault.Invalidf("adapter %s: [plugins.%s] path %s: %v", name, name, p.Path, err)
		}
		ok, err := trusted(root, sum)
		if err != nil {
			return Found{}, err
		}
		return Found{Spec: Spec{Name: name, Path: path, SHA256: p.SHA256}, Source: SourceConfig, Digest: sum, Trusted: ok}, nil
	}
	for _, d := range searchDirs() {
		path := filepath.Join(d, BinaryPrefix+name)
		if fi, err := os.Stat(path); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return Found{Spec: Spec{Name: name, Path: path, SHA256: p.SHA256}, Source: SourcePath, Trusted: true}, nil
		}
	}
	if lp, err := exec.LookPath(BinaryPrefix + name); err == nil {
		return Found{Spec: Spec{Name: name, Path: lp, SHA256: p.SHA256}, Source: SourcePath, Trusted: true}, nil
	}
	return Found{}, fault.Invalidf("no adapter %q: configure [plugins.%s] path or put %s%s on PATH", name, name, BinaryPrefix, name)
}

// List returns every adapter in config or on PATH, by name, trusted or
// not.
func List(plugins Pins, root string) []Found {
	names := map[string]bool{}
	if plugins != nil {
		for _, n := range plugins.Names() {
			names[n] = true
		}
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
		if f, err := Locate(n, plugins, root); err == nil {
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
