package worktree

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/index"

	"github.com/agentproto/agentproto/internal/gitrepo"
)

// gitConfig is the effective configuration as git itself reads it
// (system, global, repository, includes, -c and GIT_CONFIG_* from the
// environment): the last value of each key, keys lower-cased as git
// prints them. A key given without "=" holds nil.
type gitConfig map[string]*string

func loadGitConfig(repo *gitrepo.Repo) (gitConfig, error) {
	out, err := repo.ConfigList()
	if err != nil {
		// An empty configuration makes git config exit 1 here.
		var ge *gitrepo.GitError
		if errors.As(err, &ge) && ge.Stderr == "" {
			return gitConfig{}, nil
		}
		return nil, fmt.Errorf("reading git's configuration: %w", err)
	}
	cfg := gitConfig{}
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		key, value, ok := bytes.Cut(rec, []byte{'\n'})
		if !ok {
			cfg[string(key)] = nil
			continue
		}
		v := string(value)
		cfg[string(key)] = &v
	}
	return cfg, nil
}

func (c gitConfig) has(key string) bool { _, ok := c[key]; return ok }

func (c gitConfig) str(key string) string {
	if v := c[key]; v != nil {
		return *v
	}
	return ""
}

// boolean reads key as git_config_bool does; def when it is absent.
func (c gitConfig) boolean(key string, def bool) bool {
	v, ok := c[key]
	if !ok {
		return def
	}
	if v == nil {
		return true
	}
	switch strings.ToLower(*v) {
	case "true", "yes", "on":
		return true
	case "false", "no", "off", "":
		return false
	}
	n, err := strconv.ParseInt(*v, 0, 64)
	return err == nil && n != 0
}

func (c gitConfig) eol() eolConfig {
	var e eolConfig
	if v := c["core.autocrlf"]; v != nil && strings.EqualFold(*v, "input") {
		e.autocrlf = -1
	} else if c.boolean("core.autocrlf", false) {
		e.autocrlf = 1
	}
	switch v := strings.ToLower(c.str("core.eol")); v {
	case "lf", "crlf", "native":
		e.eol = v
	}
	return e
}

// filterSmudges says whether checkout runs filter driver name: a smudge
// command, a long-running process, or required (git fails without one).
func (c gitConfig) filterSmudges(name string) bool {
	p := "filter." + name + "."
	return c.str(p+"smudge") != "" || c.str(p+"process") != "" || c.boolean(p+"required", false)
}

// attributeSources lists the attribute files outside the tree that git
// reads on checkout and that exist here: the system file (unless
// GIT_ATTR_NOSYSTEM), the global one (core.attributesFile, else
// $XDG_CONFIG_HOME/git/attributes) and the repository's info/attributes.
func attributeSources(repo *gitrepo.Repo, cfg gitConfig) []string {
	var candidates []string
	if !envBool("GIT_ATTR_NOSYSTEM") {
		candidates = append(candidates, "/etc/gitattributes")
		if git, err := exec.LookPath("git"); err == nil {
			if prefix := filepath.Dir(filepath.Dir(git)); prefix != "/usr" {
				candidates = append(candidates, filepath.Join(prefix, "etc", "gitattributes"))
			}
		}
	}
	if f := cfg.str("core.attributesfile"); f != "" {
		if rest, ok := strings.CutPrefix(f, "~/"); ok {
			home, _ := os.UserHomeDir()
			f = filepath.Join(home, rest)
		}
		candidates = append(candidates, f)
	} else if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		candidates = append(candidates, filepath.Join(x, "git", "attributes"))
	} else if home, err := os.UserHomeDir(); err == nil {
		candidates = append(candidates, filepath.Join(home, ".config", "git", "attributes"))
	}
	candidates = append(candidates, repo.Path("info", "attributes"))
	var out []string
	for _, f := range candidates {
		if fi, err := os.Stat(f); err == nil && fi.Size() > 0 {
			out = append(out, f)
		}
	}
	return out
}

func envBool(name string) bool {
	switch strings.ToLower(os.Getenv(name)) {
	case "", "0", "false", "no", "off":
		return false
	}
	return true
}

// checkoutAttrs are the attributes that change what checkout writes.
var checkoutAttrs = []string{"text", "crlf", "eol", "ident", "filter", "working-tree-encoding"}

// pathAttrs is one path's values of checkoutAttrs, in that order.
type pathAttrs [6]string

// readAttributes asks git for the checkoutAttrs of every file of plan in
// one call, with the .gitattributes files of the tree itself (not of any
// working tree) in a scratch index: git check-attr --cached reads them
// from there, with the global, system and info/attributes files, exactly
// as its checkout would.
func readAttributes(repo *gitrepo.Repo, plan *treePlan) (map[string]pathAttrs, error) {
	scratch, err := os.CreateTemp("", "agentproto-attr-index-")
	if err != nil {
		return nil, err
	}
	scratch.Close()
	defer os.Remove(scratch.Name())
	var entries []*index.Entry
	for _, e := range plan.attrFiles {
		entries = append(entries, &index.Entry{Name: e.path, Hash: e.hash, Mode: e.mode})
	}
	os.Remove(scratch.Name())
	if err := writeIndex(scratch.Name(), entries); err != nil {
		return nil, err
	}
	var in bytes.Buffer
	for _, e := range plan.files {
		in.WriteString(e.path)
		in.WriteByte(0)
	}
	cmd := repo.Command(append([]string{"check-attr", "--cached", "--stdin", "-z"}, checkoutAttrs...)...)
	cmd.Env = append(cmd.Env, "GIT_INDEX_FILE="+scratch.Name())
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git check-attr: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	attrs := make(map[string]pathAttrs, len(plan.files))
	fields := bytes.Split(out, []byte{0})
	for i := 0; i+2 < len(fields); i += 3 {
		p, name, value := string(fields[i]), string(fields[i+1]), string(fields[i+2])
		a := attrs[p]
		for k, n := range checkoutAttrs {
			if n == name {
				a[k] = value
			}
		}
		attrs[p] = a
	}
	return attrs, nil
}
