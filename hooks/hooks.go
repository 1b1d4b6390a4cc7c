// Package hooks installs agentproto's blocks into git hooks, keeping any
// hook content that is already there, and runs the checks those blocks call.
package hooks

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/internal/shellscript"
)

// Hook names agentproto installs into.
const (
	HookPrePush = "pre-push"
)

// Supported lists the hooks `hooks install` knows.
var Supported = []string{HookPrePush}

// Markers delimit agentproto's block; only the block is ever removed.
const (
	BeginMarker = "# >>> agentproto >>>"
	EndMarker   = "# <<< agentproto <<<"
)

// block is the text added to a hook. It keeps the hook's stdin (the pushed
// refs) for whatever the hook does after it.
func block(hook string) string {
	return BeginMarker + `
# Added by 'git agentproto hooks install'; 'git agentproto hooks uninstall' removes it.
agentproto_in=$(mktemp) || exit 1
cat > "$agentproto_in"
git agentproto hooks run ` + hook + ` "$@" < "$agentproto_in" || { agentproto_rc=$?; rm -f "$agentproto_in"; exit $agentproto_rc; }
exec < "$agentproto_in"
rm -f "$agentproto_in"
` + EndMarker + "\n"
}

const shebang = "#!/bin/sh\n"

// Dir returns the hooks directory git uses, honouring core.hooksPath and
// linked worktrees.
func Dir(repo *gitrepo.Repo) (string, error) {
	out, err := repo.Git("rev-parse", "--git-path", "hooks")
	if err != nil {
		return "", err
	}
	dir := strings.TrimSpace(string(out))
	if !filepath.IsAbs(dir) {
		base := repo.WorkTree
		if base == "" {
			base = repo.GitDir
		}
		dir = filepath.Join(base, dir)
	}
	return dir, nil
}

func checkName(hook string) error {
	for _, h := range Supported {
		if h == hook {
			return nil
		}
	}
	return fault.Invalidf("agentproto has no %q hook (known: %s)", hook, strings.Join(Supported, ", "))
}

// Install adds agentproto's block to the hook, creating the hook if it does
// not exist. Existing content is kept; the block goes right after the
// shebang so that an early exit in the existing hook cannot skip it.
func Install(repo *gitrepo.Repo, hook string) (path string, changed bool, err error) {
	if err := checkName(hook); err != nil {
		return "", false, err
	}
	dir, err := Dir(repo)
	if err != nil {
		return "", false, err
	}
	path = filepath.Join(dir, hook)
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return path, false, err
	}
	text := string(old)
	if strings.Contains(text, BeginMarker) {
		return path, false, nil
	}
	var out string
	switch {
	case len(old) == 0:
		out = shebang + block(hook)
	default:
		first, rest, _ := strings.Cut(text, "\n")
		if !shellscript.IsShebang(first) {
			return path, false, fault.Refusedf("%s is not a shell script (%q); add this line to it yourself: git agentproto hooks run %s \"$@\"", path, first, hook)
		}
		out = first + "\n" + block(hook) + rest
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return path, false, err
	}
	mode := os.FileMode(0o755)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm() | 0o111
	}
	if err := writeAtomic(path, out, mode); err != nil {
		return path, false, err
	}
	return path, true, nil
}

// Uninstall removes agentproto's block and nothing else. A hook left with
// nothing but the shebang agentproto wrote is deleted.
func Uninstall(repo *gitrepo.Repo, hook string) (path string, changed bool, err error) {
	if err := checkName(hook); err != nil {
		return "", false, err
	}
	dir, err := Dir(repo)
	if err != nil {
		return "", false, err
	}
	path = filepath.Join(dir, hook)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return path, false, nil
	}
	if err != nil {
		return path, false, err
	}
	var kept []string
	inBlock, found := false, false
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == BeginMarker:
			inBlock, found = true, true
		case line == EndMarker && inBlock:
			inBlock = false
		case !inBlock:
			kept = append(kept, line)
		}
	}
	if !found {
		return path, false, nil
	}
	rest := strings.Join(kept, "\n") + "\n"
	if strings.TrimSpace(rest) == strings.TrimSpace(shebang) {
		return path, true, os.Remove(path)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return path, false, err
	}
	return path, true, writeAtomic(path, rest, fi.Mode().Perm())
}

func writeAtomic(path, text string, mode os.FileMode) error {
	tmp := path + ".agentproto-tmp"
	if err := os.WriteFile(tmp, []byte(text), mode); err != nil {
		return err
	}
	if err := os.Chmod(tmp, mode); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

// PushedRef is one line git gives a pre-push hook on stdin.
type PushedRef struct {
	LocalRef  string
	LocalSHA  string
	RemoteRef string
	RemoteSHA string
}

// Deleting reports whether the push deletes the remote ref.
func (p PushedRef) Deleting() bool { return strings.Trim(p.LocalSHA, "0") == "" }

// ParsePushedRefs reads the pre-push stdin lines.
func ParsePushedRefs(r io.Reader) ([]PushedRef, error) {
	var out []PushedRef
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 4 {
			return nil, fault.Invalidf("pre-push input line %d: want 4 fields, got %d", n, len(f))
		}
		out = append(out, PushedRef{LocalRef: f[0], LocalSHA: f[1], RemoteRef: f[2], RemoteSHA: f[3]})
	}
	return out, sc.Err()
}

// PrePush is what a pre-push check sees.
type PrePush struct {
	Repo   *gitrepo.Repo
	Remote string
	URL    string
	Refs   []PushedRef
	Out    io.Writer
}

// PrePushCheck refuses a push by returning an error.
type PrePushCheck struct {
	Name string
	Run  func(*PrePush) error
}

var prePushChecks []PrePushCheck

// RegisterPrePushCheck adds a check every pre-push runs, in registration
// order. This is the extension point for later features (for example:
// refuse a wt/* branch whose verify is not green).
func RegisterPrePushCheck(c PrePushCheck) { prePushChecks = append(prePushChecks, c) }

// RunPrePush runs every registered check; the first failure refuses the
// push.
func RunPrePush(p *PrePush) error {
	for _, c := range prePushChecks {
		if err := c.Run(p); err != nil {
			return fmt.Errorf("pre-push %s: %w", c.Name, err)
		}
	}
	return nil
}
