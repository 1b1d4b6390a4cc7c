package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// SessionSpec is what the policy of one executor session is made of.
type SessionSpec struct {
	// Dir is where the agent works: its worktree (or, without one, the
	// directory it was started in).
	Dir string
	// Within are the directories of Dir, relative to it, that the agent
	// may write when Dir is a linked worktree (its work package's
	// perimeter); none: all of Dir.
	Within []string
	// CommonDir is the repository's common git dir.
	CommonDir string
	// WorkTree is the repository's main working tree ("" when bare).
	WorkTree string
	// Runtime is the private runtime directory of the sessions daemon
	// (its socket and control token): never readable.
	Runtime string
	// Home and Path are the agent's HOME and PATH.
	Home, Path string
	// Tmp is the session's private temporary directory and Sockets its
	// adapter's go-plugin socket directory; both writable.
	Tmp, Sockets string
	// Adapter is the adapter binary.
	Adapter string
	// Writable and Readable are paths the configuration adds (absolute,
	// ~ already expanded).
	Writable, Readable []string
	// Options are the adapter's options: a file they name by absolute path
	// (an exec adapter's script, a CLI's binary) is what the session is
	// configured to run, so its directory is readable.
	Options map[string]string
	// CacheEnv is the session's environment, for the caches it names
	// (GOCACHE, GOMODCACHE...).
	CacheEnv []string
	// ErrorLog is the agent's own error log, which a profile names: the
	// agent writes it (its directory, or the file alone when that
	// directory is HOME).
	ErrorLog string
}

// systemRoots are the hierarchies programs are installed in and read
// their configuration from. /tmp, /run and /home are not among them.
var systemRoots = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix", "/snap",
	"/run/systemd/resolve", "/run/resolvconf", "/proc", "/sys", "/dev"}

// devices are the device files a shell or a terminal program needs.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx", "/dev/pts"}

// homeReadable are read in HOME: git's own configuration.
var homeReadable = []string{".gitconfig", ".config/git"}

// homeWritable are, in HOME, the state directories of the agent CLIs we
// know and the package caches of the common toolchains. Nothing else of
// HOME is readable: not gh's hosts.yml, not ~/.ssh, not the worktrees of
// other sessions.
var homeWritable = append([]string{
	".claude", ".claude.json", ".codex", ".gemini",
	".config/opencode", ".local/share/opencode", ".local/state/opencode",
}, homeCaches...)

// homeCaches are the package caches of the common toolchains in HOME.
var homeCaches = []string{".cache/go-build", "go/pkg/mod", ".npm", ".cache/pip", ".cache/node-gyp", ".cache/yarn", ".cargo/registry"}

// ForSession is the policy of an executor session: it writes its own
// worktree, what a commit in that worktree needs (new objects, the
// worktree's admin files, the wt/ branch directory), its temporary and
// socket directories, the agents' state and cache directories and what
// the configuration adds; it reads the system, its PATH and the
// repository's git dir. The main checkout, other worktrees, the
// repository's hooks, config and other refs, and the rest of HOME are
// out of reach.
func ForSession(s SessionSpec) (Policy, error) {
	for _, p := range []string{s.Dir, s.CommonDir, s.Home, s.Tmp} {
		if p != "" && !filepath.IsAbs(p) {
			return Policy{}, fmt.Errorf("sandbox: %q is not an absolute path", p)
		}
	}
	closed, roots := deniedWrites(s)
	secrets := secretHolders(s.Home, s.Runtime)
	var p Policy
	p.Read = append(p.Read, systemRoots...)
	p.Read = append(p.Read, spare(pathReadable(s.Path, s.Home), secrets)...)
	if s.Adapter != "" {
		p.Read = append(p.Read, dirOrFile(s.Adapter, secrets))
	}
	if s.CommonDir != "" {
		p.Read = append(p.Read, s.CommonDir)
	}
	if s.Dir != "" {
		// Started in the main checkout, it reads all of it and writes
		// only the entries sessionDirWrites lists.
		p.Read = append(p.Read, filepath.Clean(s.Dir))
	}
	for _, rel := range homeReadable {
		p.Read = append(p.Read, inHome(s.Home, rel)...)
	}
	p.Read = append(p.Read, optionReadable(s.Options, secrets)...)
	for _, r := range s.Readable {
		if err := checkAdded(r, s, "readable"); err != nil {
			return Policy{}, err
		}
		p.Read = append(p.Read, filepath.Clean(r))
	}
	dirWrites, err := sessionDirWrites(s)
	if err != nil {
		return Policy{}, err
	}
	p.Write = append(p.Write, dirWrites...)
	for _, w := range []string{s.Tmp, s.Sockets} {
		if w != "" {
			p.Write = append(p.Write, w)
		}
	}
	for _, rel := range homeWritable {
		p.Write = append(p.Write, inHome(s.Home, rel)...)
	}
	p.Write = append(p.Write, envCaches(s.CacheEnv)...)
	// A rule holds a path that exists: the state directories of the CLI
	// this session runs are made now, as that CLI's first run would.
	for _, d := range stateDirs(s) {
		os.MkdirAll(d, 0o700)
		p.Write = append(p.Write, d)
	}
	writable := s.Writable
	if s.ErrorLog != "" {
		if d := filepath.Dir(filepath.Clean(s.ErrorLog)); d != filepath.Clean(s.Home) && d != "/" {
			// Made now: a rule holds a path that exists.
			os.MkdirAll(d, 0o700)
			writable = append(writable, d)
		} else {
			writable = append(writable, s.ErrorLog)
		}
	}
	for _, w := range writable {
		if err := checkAdded(w, s, "writable"); err != nil {
			return Policy{}, err
		}
		w = filepath.Clean(w)
		for _, d := range closed {
			if within(w, d) || within(d, w) {
				return Policy{}, fmt.Errorf("sandbox: writable path %s would open %s, which the sandbox keeps closed", w, d)
			}
		}
		for _, d := range roots {
			if within(w, d) {
				return Policy{}, fmt.Errorf("sandbox: writable path %s would open all of %s", w, d)
			}
		}
		p.Write = append(p.Write, w)
	}
	p.Devices = devices
	return p, nil
}

// sessionDirWrites are the writable places of the session's directory.
// In a linked worktree: the tree, its admin dir, the object store, and
// the directory of its branch when that is a wt/ branch (git writes a
// ref by renaming a lock file beside it, so the right is the
// directory's). Started in the main checkout, each of its entries but
// the git dir and agentproto.toml is writable, and no new entry can be
// made at its top: the configuration is where the sessions daemon reads
// the [budgets] it holds the session to, which the session must not
// raise.
func sessionDirWrites(s SessionSpec) ([]string, error) {
	if s.Dir == "" {
		return nil, nil
	}
	dir := filepath.Clean(s.Dir)
	if s.WorkTree != "" && dir == filepath.Clean(s.WorkTree) {
		return mainCheckoutWrites(dir, s.CommonDir)
	}
	if s.CommonDir != "" && (within(dir, s.CommonDir) || within(s.CommonDir, dir)) {
		return nil, fmt.Errorf("sandbox: the session's directory %s holds or is inside the repository's git dir %s", dir, s.CommonDir)
	}
	out, err := withinWrites(dir, s.Within)
	if err != nil {
		return nil, err
	}
	admin, err := adminDir(dir, s.CommonDir)
	if err != nil || admin == "" {
		return out, err
	}
	out = append(out, admin, filepath.Join(s.CommonDir, "objects"))
	if branchDir := wtBranchDir(admin); branchDir != "" {
		refs := filepath.Join(s.CommonDir, "refs", "heads", branchDir)
		logs := filepath.Join(s.CommonDir, "logs", "refs", "heads", branchDir)
		for _, d := range []string{refs, logs} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return nil, fmt.Errorf("sandbox: %w", err)
			}
		}
		out = append(out, refs, logs)
	}
	return out, nil
}

// withinWrites are the directories of the worktree at dir the session
// writes: those of within, made when missing (a rule holds a path that
// exists), or dir itself. A directory reached through a symbolic link is
// refused: the rule would open wherever the link leads.
func withinWrites(dir string, dirs []string) ([]string, error) {
	if len(dirs) == 0 {
		return []string{dir}, nil
	}
	var out []string
	for _, rel := range dirs {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if filepath.IsAbs(rel) || p == dir || !within(dir, p) {
			return nil, fmt.Errorf("sandbox: perimeter directory %q is not below the worktree %s", rel, dir)
		}
		if err := mkdirNoLinks(dir, p); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// mkdirNoLinks makes the directory p below root one component at a time,
// refusing any component that is a symbolic link or not a directory.
func mkdirNoLinks(root, p string) error {
	rel, _ := filepath.Rel(root, p)
	cur := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		if errors.Is(err, os.ErrNotExist) {
			if err := os.Mkdir(cur, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
				return fmt.Errorf("sandbox: %w", err)
			}
			if fi, err = os.Lstat(cur); err != nil {
				return fmt.Errorf("sandbox: %w", err)
			}
		} else if err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
		if !fi.IsDir() {
			return fmt.Errorf("sandbox: perimeter directory %s: %s is a symbolic link or a file, not a directory of the worktree", p, cur)
		}
	}
	return nil
}

// configFile is the repository's agentproto.toml (config.FileName).
const configFile = "agentproto.toml"

func mainCheckoutWrites(dir, common string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	var out []string
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if e.Name() == ".git" || e.Name() == configFile || within(common, p) || within(p, common) {
			continue
		}
		out = append(out, p)
	}
	return out, nil
}

// adminDir is the admin dir of the linked worktree at dir, read from its
// .git file and accepted only where git keeps admin dirs: an agent of an
// earlier session could have pointed the file anywhere.
func adminDir(dir, common string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, ".git"))
	if errors.Is(err, os.ErrNotExist) || (err != nil && strings.Contains(err.Error(), "is a directory")) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("sandbox: %w", err)
	}
	rest, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
	if !ok || common == "" {
		return "", nil
	}
	admin := rest
	if !filepath.IsAbs(admin) {
		admin = filepath.Join(dir, admin)
	}
	admin = filepath.Clean(admin)
	if filepath.Dir(admin) != filepath.Join(common, "worktrees") {
		return "", fmt.Errorf("sandbox: %s/.git points at %s, which is not an admin dir of this repository's worktrees", dir, admin)
	}
	fi, err := os.Lstat(admin)
	if err != nil || !fi.IsDir() {
		return "", fmt.Errorf("sandbox: the admin dir %s of worktree %s is not a directory", admin, dir)
	}
	return admin, nil
}

// wtBranchDir is the directory, under refs/heads, of the worktree's
// branch when it is an agentproto branch (wt/...), else "".
func wtBranchDir(admin string) string {
	b, err := os.ReadFile(filepath.Join(admin, "HEAD"))
	if err != nil {
		return ""
	}
	ref, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "ref: refs/heads/")
	if !ok || !strings.HasPrefix(ref, "wt/") || strings.Contains(ref, "..") {
		return ""
	}
	return filepath.Dir(ref)
}
