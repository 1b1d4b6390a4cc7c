package catalog

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/google/shlex"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/internal/repopath"
	"github.com/agentproto/agentproto/plugins/vocab"
)

// Adapter options are command lines as much as data: the exec adapter runs
// options.command, claude-code and codex run options.binary with
// options.extra. Options committed in agentproto.toml ([plugins.NAME]
// options, [profiles.NAME] options) are therefore code the repository asks
// us to run, and like hooks they run only once trusted on this machine: by
// a digest of the options and of the files of the session directory their
// words name, so a changed script needs trust again as a changed command
// does. Options the user gives on the command line or keeps in this
// clone's own profiles file are the user's and need none.

// OptionsTrustFile is where option trust is kept, under the common git dir.
const OptionsTrustFile = "agentproto/trusted-options"

// dataOptions are options every adapter reads as a value, never as a word
// of a command: they stay out of the digest. Every other option counts.
var dataOptions = map[string]bool{"ping": true, "prompt": true}

// OptionLayer is one committed section of adapter options.
type OptionLayer struct {
	Section string // "plugins.exec" or "profiles.cheap"
	Adapter string
	Options map[string]string
}

// TrustCommand is the command that trusts the layer; dir, when not empty,
// is the directory whose files it hashes (by default the repository's).
func (l OptionLayer) TrustCommand(dir string) string {
	kind, name, _ := strings.Cut(l.Section, ".")
	cmd := "git agentproto plugin trust " + name
	if kind == "profiles" {
		cmd = "git agentproto profile trust " + name
	}
	if dir != "" {
		cmd += " --dir " + shellQuote(dir)
	}
	return cmd
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// OptionsCheck is what trusting a layer covers, and whether it is trusted.
type OptionsCheck struct {
	Layer   OptionLayer
	Covered map[string]string // the options that count
	Scripts map[string]string // file -> sha256, as in the session directory
	Digest  string
	Trusted bool
}

// Empty reports whether nothing in the layer needs trust.
func (c OptionsCheck) Empty() bool { return len(c.Covered) == 0 }

// InspectOptions computes the digest of a layer's options and of the files
// of dir their words name, and whether it is trusted in the repository
// whose top is root (files it names by absolute path count too).
func InspectOptions(root, dir string, l OptionLayer) (OptionsCheck, error) {
	c := OptionsCheck{Layer: l, Covered: map[string]string{}}
	for k, v := range l.Options {
		if !dataOptions[k] {
			c.Covered[k] = v
		}
	}
	if c.Empty() {
		c.Trusted = true
		return c, nil
	}
	var err error
	if c.Scripts, err = optionScripts(root, dir, c.Covered); err != nil {
		return c, fault.Refusedf("[%s] options: %v", l.Section, err)
	}
	b, _ := json.Marshal(struct {
		Section, Adapter string
		Options, Scripts map[string]string
	}{l.Section, l.Adapter, c.Covered, c.Scripts})
	s := sha256.Sum256(b)
	c.Digest = hex.EncodeToString(s[:])
	c.Trusted, err = optionsTrusted(root, c.Digest)
	return c, err
}

// optionScripts hashes each regular file of dir that a word of the options
// names. The files are read through a root at dir: a word that leads
// outside it by a symlink cannot be trusted by content and is refused.
//
// A word naming an absolute path inside dir or inside the repository at
// top names that one file wherever the session runs — the trust command
// hashes the repository, a session runs in a worktree — so it is keyed by
// its absolute path and read where it is. An absolute path outside both is
// a program of this machine: the option text names it.
func optionScripts(top, dir string, opts map[string]string) (map[string]string, error) {
	out := map[string]string{}
	if dir == "" {
		return out, nil
	}
	roots := map[string]*os.Root{}
	defer func() {
		for _, r := range roots {
			r.Close()
		}
	}()
	open := func(base string) (*os.Root, error) {
		if r, ok := roots[base]; ok {
			return r, nil
		}
		r, err := os.OpenRoot(base)
		if err == nil {
			roots[base] = r
		}
		return r, err
	}
	if _, err := open(dir); err != nil {
		return nil, err
	}
	for _, v := range opts {
		for _, w := range optionWords(v) {
			base, key := dir, ""
			if filepath.IsAbs(w) {
				var ok bool
				if base, w, ok = within(filepath.Clean(w), dir, top); !ok {
					continue
				}
				key = filepath.Join(base, filepath.FromSlash(w))
			}
			rel, err := repopath.Clean(w)
			if err != nil {
				continue
			}
			if key == "" {
				key = rel
			}
			if _, ok := out[key]; ok {
				continue
			}
			r, err := open(base)
			if err != nil {
				return nil, fmt.Errorf("%s cannot be trusted by content: %v", key, err)
			}
			sum, err := hashIn(r, rel)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", key, err)
			}
			if sum != "" {
				out[key] = sum
			}
		}
	}
	return out, nil
}

// within returns which of dirs holds the absolute path abs, and abs
// relative to it with slashes.
func within(abs string, dirs ...string) (base, rel string, ok bool) {
	for _, d := range dirs {
		if d == "" {
			continue
		}
		r, err := filepath.Rel(d, abs)
		if err != nil || r == "." || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			continue
		}
		return d, filepath.ToSlash(r), true
	}
	return "", "", false
}

// hashIn returns the sha256 of the regular file rel under r, "" when there
// is none (missing, or a directory). A name leading out of r by a symlink
// is an error: it cannot be trusted by content.
func hashIn(r *os.Root, rel string) (string, error) {
	fi, err := r.Lstat(filepath.FromSlash(rel))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil
		}
		return "", fmt.Errorf("cannot be trusted by content: %v", err)
	}
	if fi.Mode()&fs.ModeSymlink == 0 && !fi.Mode().IsRegular() {
		return "", nil
	}
	f, err := r.Open(filepath.FromSlash(rel))
	if err != nil {
		return "", fmt.Errorf("cannot be trusted by content: %v", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return "", err
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// optionWords splits an option as the adapters do (vocab.SplitCommand) and
// as a shell would (shlex, for options run by sh -c), and each word again
// at shell punctuation and '=' (a KEY=FILE word names FILE). Both splits
// count: the two disagree on comments ("sh #x" is one word to a shell and
// two to an adapter), and a file either names must be hashed, or it could
// change after trust without asking again.
func optionWords(v string) []string {
	var words []string
	if w, err := vocab.SplitCommand(v); err == nil {
		words = append(words, w...)
	}
	if w, err := shlex.Split(v); err == nil {
		words = append(words, w...)
	}
	words = append(words, strings.Fields(v)...)
	var out []string
	for _, w := range words {
		out = append(out, strings.FieldsFunc(w, func(r rune) bool { return strings.ContainsRune(";&|<>()`$= \t\n", r) })...)
	}
	return out
}

func optionsTrustPath(root string) (string, error) {
	if root == "" {
		return "", fmt.Errorf("no repository to keep option trust in")
	}
	repo, err := gitrepo.Discover(root)
	if err != nil {
		return "", err
	}
	return repo.Path(OptionsTrustFile), nil
}

func optionsTrusted(root, digest string) (bool, error) {
	path, err := optionsTrustPath(root)
	if err != nil {
		return false, err
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if w := strings.Fields(sc.Text()); len(w) > 0 && w[0] == digest {
			return true, nil
		}
	}
	return false, sc.Err()
}

// TrustOptions records a layer's digest as trusted on this machine and
// reports whether it was new.
func TrustOptions(root string, c OptionsCheck) (bool, error) {
	if c.Empty() || c.Trusted {
		return false, nil
	}
	path, err := optionsTrustPath(root)
	if err != nil {
		return false, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return false, err
	}
	defer f.Close()
	_, err = fmt.Fprintf(f, "%s %s %s\n", c.Digest, time.Now().UTC().Format(time.RFC3339), c.Layer.Section)
	return err == nil, err
}

// Describe lists what trusting the layer covers, for a person to read.
func (c OptionsCheck) Describe() string {
	var b strings.Builder
	for _, k := range sortedKeys(c.Covered) {
		fmt.Fprintf(&b, "  option   %s = %q\n", k, c.Covered[k])
	}
	for _, p := range sortedKeys(c.Scripts) {
		fmt.Fprintf(&b, "  runs     %s (sha256 %.12s; read it before trusting)\n", p, c.Scripts[p])
	}
	return b.String()
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// RequireOptionsTrust fails with exit 5, naming the section, its options
// and the command that trusts them, unless every layer is trusted. dir is
// the directory the session will run in, whose files the words of the
// options name; trustDir is what the trust command is told to hash instead
// of the repository ("" when dir holds the repository's files, as a
// worktree does).
func RequireOptionsTrust(root, dir, trustDir string, layers []OptionLayer) error {
	for _, l := range layers {
		c, err := InspectOptions(root, dir, l)
		if err != nil {
			return err
		}
		if c.Trusted {
			continue
		}
		return fault.Refusedf("adapter %s: the options of [%s] come from %s and are not trusted on this machine (they name what the adapter runs):\n%sreview them, then run: %s",
			l.Adapter, l.Section, ConfigFile, c.Describe(), l.TrustCommand(trustDir))
	}
	return nil
}

// ConfigCommitted reports whether the agentproto.toml of the working tree
// root is tracked by git: then any commit, an agent's included, may have
// written it, and the options it gives need trust. An untracked one is the
// user's own.
func ConfigCommitted(root string) bool {
	repo, err := gitrepo.Discover(root)
	if err != nil {
		return true
	}
	// In HEAD's tree it came from a commit, whatever the index says now;
	// that is read without git. Else the index tells.
	if repo.StoredAtHead(ConfigFile) {
		return true
	}
	out, err := repo.Git("ls-files", "--", ConfigFile)
	return err != nil || strings.TrimSpace(string(out)) != "" // unsure: committed
}
