// Package gitref reads and updates refs the way the git CLI does — loose
// files, packed-refs and "<ref>.lock" compare-and-swap — so that git and
// agentproto can work on the same refs at the same time.
package gitref

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"
)

// Store is the refs of one repository (its common git dir).
type Store struct {
	Common string
}

// ErrStale means the ref moved since it was read: the caller rebuilds on
// the new tip and tries again.
var ErrStale = errors.New("ref moved during update")

// lockWait is how long an update waits for another process's ref lock.
// Git holds ref locks for milliseconds; far longer means a dead holder.
const lockWait = 5 * time.Second

// BrokenRef is a ref whose file exists but holds no object id: empty,
// truncated or overwritten. Git lists it as broken; it is never "absent",
// or the next update would start its history again from nothing.
type BrokenRef struct {
	Name    string
	Path    string // the loose file, or packed-refs
	Content string // what the file holds, cut short
}

func (b BrokenRef) Error() string {
	what := "is empty"
	if b.Content != "" {
		what = fmt.Sprintf("holds %q", b.Content)
	}
	return fmt.Sprintf("ref %s cannot be read: %s %s, not an object id (restore it with git update-ref %s <commit>, e.g. from another clone)", b.Name, b.Path, what, b.Name)
}

// parseLoose reads the content of a loose ref file as git does
// (refs/files-backend.c): "ref: <name>" is symbolic; otherwise 40 hex
// digits, of either case, then the end or white space.
func parseLoose(b []byte) (oid string, symbolic bool, ok bool) {
	if t, found := bytes.CutPrefix(b, []byte("ref:")); found {
		return "", true, len(bytes.TrimSpace(t)) > 0
	}
	if len(b) < 40 || (len(b) > 40 && !isSpace(b[40])) {
		return "", false, false
	}
	h := make([]byte, 40)
	for i, c := range b[:40] {
		switch {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f':
			h[i] = c
		case c >= 'A' && c <= 'F':
			h[i] = c + ('a' - 'A')
		default:
			return "", false, false
		}
	}
	return string(h), false, true
}

// isSpace is C's isspace in the "C" locale, which git uses.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// ValidOID reports whether s is a full SHA-1 object id in lowercase hex.
func ValidOID(s string) bool {
	if len(s) != 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func brokenRef(name, path string, b []byte) BrokenRef {
	c := strings.TrimSpace(string(b))
	if len(c) > 48 {
		c = c[:48] + "..."
	}
	return BrokenRef{Name: name, Path: path, Content: c}
}

// Read returns the ref's value from the loose file or, failing that, from
// packed-refs; "" when the ref does not exist. A ref file that holds no
// object id is a BrokenRef error.
func (s Store) Read(name string) (string, error) {
	path := filepath.Join(s.Common, name)
	b, err := os.ReadFile(path)
	if err == nil {
		oid, symbolic, ok := parseLoose(b)
		switch {
		case symbolic:
			return "", fmt.Errorf("%s is a symbolic ref", name)
		case !ok:
			return "", brokenRef(name, path, b)
		}
		return oid, nil
	}
	if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.EISDIR) {
		return "", err
	}
	packed, broken, err := s.packed(name)
	if err != nil {
		return "", err
	}
	for _, b := range broken {
		if b.Name == name {
			return "", b
		}
	}
	return packed[name], nil
}

// packed returns the packed refs that start with prefix, and those whose
// line holds no object id.
func (s Store) packed(prefix string) (map[string]string, []BrokenRef, error) {
	out := map[string]string{}
	path := filepath.Join(s.Common, "packed-refs")
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	p := []byte(prefix)
	var broken []BrokenRef
	for sc.Scan() {
		oid, name, ok := parsePackedLine(sc.Bytes())
		if !bytes.HasPrefix(name, p) {
			continue
		}
		if !ok {
			broken = append(broken, brokenRef(string(name), path, sc.Bytes()))
			continue
		}
		out[string(name)] = oid
	}
	return out, broken, sc.Err()
}

// parsePackedLine splits a packed-refs line "<oid> <name>". Comments and
// peeled lines ("^<oid>") have no name; a line with a name but no valid
// object id is ok=false.
func parsePackedLine(line []byte) (oid string, name []byte, ok bool) {
	if len(line) == 0 || line[0] == '#' || line[0] == '^' {
		return "", nil, false
	}
	i := bytes.IndexByte(line, ' ')
	if i < 0 {
		return "", nil, false
	}
	oid, name = string(line[:i]), line[i+1:]
	return oid, name, ValidOID(oid) && len(name) > 0
}

// List returns every ref under prefix (which ends in "/"), loose ones
// overriding packed ones as in git. A ref that cannot be read fails the
// listing with its BrokenRef: skipping it would make it look absent.
func (s Store) List(prefix string) (map[string]string, error) {
	refs, broken, err := s.ListAll(prefix)
	if err != nil {
		return nil, err
	}
	if len(broken) > 0 {
		return nil, broken[0]
	}
	return refs, nil
}

// ListAll is List that returns the refs it can read and, apart, those it
// cannot.
func (s Store) ListAll(prefix string) (map[string]string, []BrokenRef, error) {
	return s.ListAllBut(prefix, "")
}

// ListAllBut is ListAll leaving out the refs under but (a prefix ending in
// a slash), whose loose files it does not read: a look at a repository's
// own branches need not read the thousands agentproto made.
func (s Store) ListAllBut(prefix, but string) (map[string]string, []BrokenRef, error) {
	refs, packedBroken, err := s.packed(prefix)
	if err != nil {
		return nil, nil, err
	}
	if but != "" {
		for name := range refs {
			if strings.HasPrefix(name, but) {
				delete(refs, name)
			}
		}
		packedBroken = slices.DeleteFunc(packedBroken, func(b BrokenRef) bool { return strings.HasPrefix(b.Name, but) })
	}
	skip := filepath.Join(s.Common, strings.TrimSuffix(but, "/"))
	var broken []BrokenRef
	root := filepath.Join(s.Common, prefix)
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() && but != "" && path == skip {
			return fs.SkipDir
		}
		if d.IsDir() || strings.HasSuffix(d.Name(), ".lock") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // pruned by pack-refs while we walked; packed value stands
			}
			return err
		}
		rel, _ := filepath.Rel(s.Common, path)
		name := filepath.ToSlash(rel)
		oid, symbolic, ok := parseLoose(b)
		if symbolic || !ok {
			broken = append(broken, brokenRef(name, path, b))
			delete(refs, name) // the loose file stands for the ref, as in git
			return nil
		}
		refs[name] = oid
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	// A packed line shadowed by a good loose file does not count.
	for _, b := range packedBroken {
		if _, ok := refs[b.Name]; !ok && !hasBroken(broken, b.Name) {
			broken = append(broken, b)
		}
	}
	sort.Slice(broken, func(i, j int) bool { return broken[i].Name < broken[j].Name })
	return refs, broken, nil
}

func hasBroken(list []BrokenRef, name string) bool {
	for _, b := range list {
		if b.Name == name {
			return true
		}
	}
	return false
}

// Update moves ref name from old ("" = must not exist) to new, following
// git's protocol: create "<ref>.lock" exclusively, check the current value
// under the lock, write the new value into the lock, rename it over the ref.
func (s Store) Update(name, newOID, oldOID string) error {
	path := filepath.Join(s.Common, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	lock, err := s.lock(path)
	if err != nil {
		return err
	}
	committed := false
	defer func() {
		if !committed {
			os.Remove(path + ".lock")
		}
	}()
	cur, err := s.Read(name)
	if err != nil {
		lock.Close()
		return err
	}
	if cur != oldOID {
		lock.Close()
		return ErrStale
	}
	if _, err := lock.WriteString(newOID + "\n"); err != nil {
		lock.Close()
		return err
	}
	// On disk before the rename makes it the ref: a crash must leave the
	// old value or the new one, never an empty or torn file.
	if err := lock.Sync(); err != nil {
		lock.Close()
		return err
	}
	if err := lock.Close(); err != nil {
		return err
	}
	if err := os.Rename(path+".lock", path); err != nil {
		return err
	}
	committed = true
	// The rename is done; syncing the directory makes it durable. A failure
	// here cannot undo it, so the update stands.
	syncDir(filepath.Dir(path))
	return nil
}

func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	d.Sync()
	d.Close()
}

// lock takes "<path>.lock". A lock older than lockWait is left over from a
// killed process: git and agentproto hold ref locks for milliseconds.
func (s Store) lock(path string) (*os.File, error) {
	deadline := time.Now().Add(lockWait)
	delay := time.Millisecond
	for {
		f, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err == nil {
			return f, nil
		}
		if errors.Is(err, fs.ErrNotExist) {
			// pack-refs removed the directory it emptied; make it again.
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return nil, err
			}
			continue
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		if fi, serr := os.Stat(path + ".lock"); serr == nil && time.Since(fi.ModTime()) > lockWait {
			os.Remove(path + ".lock")
			continue
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("unable to lock %s: %s.lock exists; another git process may be running", filepath.Base(path), path)
		}
		time.Sleep(delay)
		if delay < 50*time.Millisecond {
			delay *= 2
		}
	}
}

// ValidRefName reports whether name (such as "refs/heads/wt/x") follows
// git's rules for ref names (git check-ref-format), without a subprocess.
func ValidRefName(name string) bool {
	if name == "" || name == "@" || strings.HasSuffix(name, "/") || strings.HasSuffix(name, ".") ||
		strings.Contains(name, "..") || strings.Contains(name, "//") || strings.Contains(name, "@{") {
		return false
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(" ~^:?*[\\", r) {
			return false
		}
	}
	for _, part := range strings.Split(name, "/") {
		if part == "" || strings.HasPrefix(part, ".") || strings.HasSuffix(part, ".lock") {
			return false
		}
	}
	return true
}

// Symbolic returns the target of a symbolic ref stored as a loose file
// ("ref: refs/heads/main"), read from dir (the common dir, or a worktree's
// git dir for HEAD).
func Symbolic(dir, name string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return "", false
	}
	t, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "ref: ")
	return t, ok
}
