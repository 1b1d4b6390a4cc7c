package sandbox

// What a session may read beyond the system's hierarchies, and the agent
// CLIs' own state: the programs on PATH, the files the adapter's options
// name, and each CLI's state directories under HOME.

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// pathReadable are the hierarchies the programs on PATH live in: each
// directory, a node_modules/.bin's node_modules (its entries link into
// it), and a bin's parent (a toolchain's root), except HOME and /.
func pathReadable(path, home string) []string {
	var out []string
	for _, d := range filepath.SplitList(path) {
		if !filepath.IsAbs(d) {
			continue
		}
		d = filepath.Clean(d)
		out = append(out, d)
		parent := filepath.Dir(d)
		switch {
		case filepath.Base(d) == ".bin" && filepath.Base(parent) == "node_modules":
			out = append(out, parent)
		case filepath.Base(d) != "bin" || parent == "/" || parent == home:
		case home != "" && parent == filepath.Join(home, ".local"):
			out = append(out, filepath.Join(parent, "lib"), filepath.Join(parent, "share", "pnpm"))
		default:
			out = append(out, parent)
		}
	}
	return out
}

func inHome(home, rel string) []string {
	if home == "" || !filepath.IsAbs(home) {
		return nil
	}
	return []string{filepath.Join(home, rel)}
}

// optionReadable are the directories of the files the adapter's options
// name by absolute path (words of their values), and of where those
// resolve to; a package's node_modules for a file inside one. A directory
// that holds one of secrets is left out for the file alone (spare.go).
func optionReadable(options map[string]string, secrets []string) []string {
	var out []string
	for _, v := range options {
		for _, w := range strings.Fields(v) {
			w = strings.Trim(w, `"'`)
			if !filepath.IsAbs(w) {
				continue
			}
			fi, err := os.Stat(w)
			if err != nil || !fi.Mode().IsRegular() {
				continue
			}
			out = append(out, dirOrFile(filepath.Clean(w), secrets))
			if real, err := filepath.EvalSymlinks(w); err == nil {
				out = append(out, dirOrFile(real, secrets))
				if i := strings.LastIndex(real, "/node_modules/"); i >= 0 && !holds(real[:i+len("/node_modules")], secrets) {
					out = append(out, real[:i+len("/node_modules")])
				}
			}
		}
	}
	return out
}

// cliState are, by a word naming an agent CLI, its state directories
// under HOME, or absolute ({uid}: the user's id). codex's own sandbox
// keeps a directory of its own in /tmp, whatever TMPDIR says.
var cliState = map[string][]string{
	"claude":   {".claude"},
	"codex":    {".codex", "/tmp/codex-daemon-{uid}"},
	"gemini":   {".gemini"},
	"opencode": {".config/opencode", ".local/share/opencode", ".local/state/opencode", ".cache/opencode"},
}

// stateDirs are the state directories of the agent CLIs the session's
// adapter or options name (claude-code, a binary .../codex, a command
// "gemini --experimental-acp").
func stateDirs(s SessionSpec) []string {
	words := strings.ToLower(s.Adapter)
	for _, v := range s.Options {
		words += " " + strings.ToLower(v)
	}
	var out []string
	for cli, dirs := range cliState {
		if !strings.Contains(words, cli) {
			continue
		}
		for _, d := range dirs {
			if strings.HasPrefix(d, "/") {
				out = append(out, strings.ReplaceAll(d, "{uid}", strconv.Itoa(os.Getuid())))
				continue
			}
			out = append(out, inHome(s.Home, d)...)
		}
	}
	sort.Strings(out)
	return out
}

// Env is what the session's environment needs in the sandbox: claude
// keeps its settings file beside HOME (~/.claude.json, replaced by a
// rename there), which the sandbox cannot let it write; pointed at
// ~/.claude by CLAUDE_CONFIG_DIR, it keeps it inside, where it may.
// Its settings and credentials are in ~/.claude either way; the
// settings file is copied in once so that what it held carries over.
func (s SessionSpec) Env() []string {
	if s.Home == "" || !slices.Contains(stateDirs(s), filepath.Join(s.Home, ".claude")) {
		return nil
	}
	dir := filepath.Join(s.Home, ".claude")
	inside := filepath.Join(dir, ".claude.json")
	if _, err := os.Lstat(inside); errors.Is(err, os.ErrNotExist) {
		if b, err := os.ReadFile(filepath.Join(s.Home, ".claude.json")); err == nil {
			os.WriteFile(inside, b, 0o600)
		}
	}
	return []string{"CLAUDE_CONFIG_DIR=" + dir}
}
