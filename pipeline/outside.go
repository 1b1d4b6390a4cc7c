package pipeline

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/worktree"
)

// Outside is a snapshot of what lies outside a WP's worktree and an
// executor could change to reach past it, one fingerprint per place: the
// main checkout's changed and untracked files (status, size, mode, mtime —
// no hashing, so it stays cheap), the common git dir's config, info/ and
// hooks, branches and tags, the HEAD of linked worktrees agentproto did
// not make, this worktree's own config.worktree, and the user's global git
// config and ignore files. agentproto.toml counts by what it sets beyond
// config.Inert, compared with its committed version. agentproto's own state (refs/agentproto, the
// wt/* branches, its worktrees, sessions) moves while WPs run and is left
// out.
type Outside map[string]string

// SnapshotOutside takes the snapshot for the worktree slug.
func SnapshotOutside(repo *gitrepo.Repo, slug string) (Outside, error) {
	o, err := snapshotByGit(repo)
	if err != nil {
		return nil, err
	}
	o.addGitFiles(repo.CommonDir, slug)
	return o, nil
}

// snapshotByGit is the part of the snapshot git tells, most of its cost:
// the main checkout's status, the hooks path's directory, the branches and
// tags. Making a worktree changes none of it (the worktree lives outside
// the checkout, its branch is left out), so it may be taken meanwhile.
func snapshotByGit(repo *gitrepo.Repo) (Outside, error) {
	common := repo.CommonDir
	// Its three git commands run at once, each into a map of its own.
	checkout, hooksPath, refs := Outside{}, Outside{}, Outside{}
	err := together(
		func() error {
			if main := mainCheckout(common); main != "" {
				return checkout.addCheckout(main, common)
			}
			return nil
		},
		func() error {
			if values, err := repo.ConfigValues("core.hooksPath"); err == nil && len(values) > 0 {
				if p := strings.TrimSpace(values[len(values)-1]); p != "" { // the last one wins, as git reads it
					hooksPath.addDir("hooks-path:"+p, expandHome(p))
				}
			}
			return nil
		},
		func() error { return refs.addRefs(repo) },
	)
	if err != nil {
		return nil, err
	}
	o := Outside{}
	for _, part := range []Outside{checkout, hooksPath, refs} {
		maps.Copy(o, part)
	}
	return o, nil
}

// addGitFiles records the files of the common dir a session could use to
// reach past its worktree (config, hooks, info, alternates, the HEADs of
// worktrees agentproto did not make, slug's config.worktree) and the
// user's global git configuration.
func (o Outside) addGitFiles(common, slug string) {
	for _, rel := range []string{"config", "objects/info/alternates", "shallow", filepath.Join("worktrees", slug, "config.worktree")} {
		o.addFile("git:"+filepath.ToSlash(rel), filepath.Join(common, rel))
	}
	o.addDir("git:hooks", filepath.Join(common, "hooks"))
	o.addFiles("git:info", filepath.Join(common, "info"), serverInfo)
	home, _ := os.UserHomeDir()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	for _, p := range []string{filepath.Join(home, ".gitconfig"), filepath.Join(xdg, "git", "config"), filepath.Join(xdg, "git", "ignore"), filepath.Join(xdg, "git", "attributes")} {
		if home != "" || xdg != "" {
			o.addFile("global:"+p, p)
		}
	}
	if b, err := os.ReadFile(filepath.Join(common, "HEAD")); err == nil {
		o["git:HEAD"] = strings.TrimSpace(string(b))
	}
	admins, _ := os.ReadDir(filepath.Join(common, "worktrees"))
	for _, a := range admins {
		dir := filepath.Join(common, "worktrees", a.Name())
		if _, err := os.Stat(filepath.Join(dir, "agentproto.json")); err == nil {
			continue // one of ours: its branch moves by design
		}
		if b, err := os.ReadFile(filepath.Join(dir, "HEAD")); err == nil {
			o["worktree:"+a.Name()+":HEAD"] = strings.TrimSpace(string(b))
		}
	}
}

// addRefs records the branches and tags, but the worktrees' own, which
// are not even read: a repository keeps every plan's WP branches, and
// reading them cost each snapshot 150 ms at 5,000 of them.
func (o Outside) addRefs(repo *gitrepo.Repo) error {
	refs, err := repo.RefsBut("refs/heads/"+worktree.BranchPrefix, "refs/heads", "refs/tags")
	if err != nil {
		return err
	}
	for _, r := range refs {
		if !strings.HasPrefix(r.Name, "refs/heads/"+worktree.BranchPrefix) {
			o["ref:"+r.Name] = r.ID
		}
	}
	return nil
}

// mainCheckout is the working tree of a non-bare repository whose common
// dir is its .git directory, else "".
func mainCheckout(common string) string {
	if filepath.Base(common) != ".git" {
		return ""
	}
	return filepath.Dir(common)
}

func expandHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return p
}

// addCheckout records each path git status lists in the main checkout.
func (o Outside) addCheckout(main, common string) error {
	return o.addStatus(&gitrepo.Repo{GitDir: common, CommonDir: common, WorkTree: main}, "checkout:")
}

// addStatus records each path git status lists in r's working tree, under
// prefix, by its status, mode, size and mtime. Optional locks are off so
// that the index is not rewritten.
func (o Outside) addStatus(r *gitrepo.Repo, prefix string) error {
	out, err := r.Git("--no-optional-locks", "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames")
	if err != nil {
		return err
	}
	for _, rec := range splitNUL(out) {
		if len(rec) < 4 {
			continue
		}
		path := rec[3:]
		// The user's own configuration counts only where a session could
		// see it: keys no session reads (config.Effective) are left out.
		if prefix == "checkout:" && path == config.FileName {
			if fp, counts := configFingerprint(r, r.WorkTree); counts {
				o[prefix+path] = fp
			}
			continue
		}
		fp := rec[:2]
		if fi, err := os.Lstat(filepath.Join(r.WorkTree, filepath.FromSlash(path))); err == nil {
			fp += fmt.Sprintf(" %o %d %d", fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		} else {
			fp += " absent"
		}
		o[prefix+path] = fp
	}
	return nil
}

// addFile records a file by its mode and content; an absent file is
// recorded as absent, so creating one shows.
func (o Outside) addFile(key, path string) {
	fi, err := os.Lstat(path)
	if err != nil {
		o[key] = "absent"
		return
	}
	if !fi.Mode().IsRegular() {
		target, _ := os.Readlink(path)
		o[key] = fmt.Sprintf("%s %s", fi.Mode(), target)
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		o[key] = "unreadable " + err.Error()
		return
	}
	sum := sha256.Sum256(b)
	o[key] = fmt.Sprintf("%o %x", fi.Mode().Perm(), sum)
}

// addDir records every file under dir, and the directory itself.
func (o Outside) addDir(key, dir string) {
	o.addFile(key, dir)
	o.addFiles(key, dir, nil)
}

// serverInfo is the file git's update-server-info derives from the refs
// and packs (any repack or gc writes it): it reaches nothing, and a
// work package that could write it could write the refs instead.
var serverInfo = map[string]bool{"refs": true}

// addFiles adds each file under dir but those named in skip (relative,
// slash-separated). The directory's own entry is left out: creating a
// skipped file changes it.
func (o Outside) addFiles(key, dir string, skip map[string]bool) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return nil
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if !skip[rel] {
			o.addFile(key+"/"+rel, p)
		}
		return nil
	})
}

// encode is the snapshot's canonical form (encoding/json sorts map keys)
// and its SHA-256.
func (o Outside) encode() ([]byte, string) {
	b, _ := json.Marshal(o)
	sum := sha256.Sum256(b)
	return b, hex.EncodeToString(sum[:])
}

func outsideDir(common string) string { return filepath.Join(common, "agentproto", "outside") }

// SaveOutside keeps the snapshot under the common dir, named by its hash;
// the ledger records only the hash, so an altered file is told apart.
func SaveOutside(common string, o Outside) (string, error) {
	b, sum := o.encode()
	return sum, writeByHash(outsideDir(common), sum+".json", b)
}

// loadOutside reads the snapshot whose hash is sum, refusing one whose
// content no longer has that hash.
func loadOutside(common, sum string) (Outside, error) {
	if !isHash(sum) {
		return nil, fmt.Errorf("%q is not a snapshot hash", sum)
	}
	b, err := os.ReadFile(filepath.Join(outsideDir(common), sum+".json"))
	if err != nil {
		return nil, err
	}
	h := sha256.Sum256(b)
	if hex.EncodeToString(h[:]) != sum {
		return nil, errors.New("its content was altered")
	}
	var o Outside
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&o); err != nil {
		return nil, err
	}
	return o, nil
}

// outsideFindings compares what lies outside the worktree now with the
// snapshot of the WP's dispatch; each difference is a finding naming the
// place.
func outsideFindings(repo *gitrepo.Repo, slug, sum string) ([]string, error) {
	if sum == "" {
		return nil, nil // dispatched before snapshots were taken
	}
	now, err := SnapshotOutside(repo, slug)
	if err != nil {
		return nil, err
	}
	if _, s := now.encode(); s == sum {
		return nil, nil
	}
	then, err := loadOutside(repo.CommonDir, sum)
	if err != nil {
		return []string{fmt.Sprintf("outside-snapshot: the snapshot taken at dispatch (%s) cannot be read (%v), so writes outside the worktree cannot be ruled out", sum[:min(12, len(sum))], err)}, nil
	}
	var fs []string
	for _, place := range diffOutside(repo.CommonDir, then, now) {
		fs = append(fs, "outside-worktree: "+place+" changed since the WP was dispatched")
	}
	return fs, nil
}

// diffOutside names each place whose fingerprint differs, sorted.
func diffOutside(common string, then, now Outside) []string {
	var keys []string
	for k, v := range now {
		if then[k] != v {
			keys = append(keys, k)
		}
	}
	for k := range then {
		if _, ok := now[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	places := make([]string, len(keys))
	for i, k := range keys {
		places[i] = describeOutside(common, k)
	}
	return places
}

// describeOutside turns a snapshot key into the path or name a user
// recognises.
func describeOutside(common, key string) string {
	kind, rest, _ := strings.Cut(key, ":")
	switch kind {
	case "checkout":
		return filepath.Join(mainCheckout(common), filepath.FromSlash(rest))
	case "git":
		return filepath.Join(common, filepath.FromSlash(rest))
	case "ref":
		return "ref " + rest
	case "worktree":
		return "the HEAD of worktree " + strings.TrimSuffix(rest, ":HEAD")
	}
	return rest
}

// configFingerprint is the main checkout's agentproto.toml as the
// snapshot sees it: what it sets beyond config.Inert. A file that sets
// the same as its committed version (or as no file, when none is
// committed) does not count; the user's own [e2e] commands added after a
// dispatch are no outside change. A file that is no TOML counts by its
// bytes.
func configFingerprint(main *gitrepo.Repo, dir string) (string, bool) {
	now, err := os.ReadFile(filepath.Join(dir, config.FileName))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "unreadable " + err.Error(), true
	}
	committed, _ := main.Blob("HEAD", config.FileName)
	eNow, ok := config.Effective(now)
	if !ok {
		sum := sha256.Sum256(now)
		return fmt.Sprintf("bytes %x", sum), true
	}
	if eHead, ok := config.Effective(committed); ok && eHead == eNow {
		return "", false
	}
	sum := sha256.Sum256([]byte(eNow))
	return fmt.Sprintf("config %x", sum), true
}

func splitNUL(b []byte) []string {
	var out []string
	for _, f := range bytes.Split(b, []byte{0}) {
		if len(f) > 0 {
			out = append(out, string(f))
		}
	}
	return out
}
