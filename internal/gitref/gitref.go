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

// Read returns the ref's value from the loose file or, failing that, from
// packed-refs; "" when the ref does not exist.
func (s Store) Read(name string) (string, error) {
	b, err := os.ReadFile(filepath.Join(s.Common, name))
	if err == nil {
		v := strings.TrimSpace(string(b))
		if strings.HasPrefix(v, "ref: ") {
			return "", fmt.Errorf("%s is a symbolic ref", name)
		}
		return v, nil
	}
	if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.EISDIR) {
		return "", err
	}
	packed, err := s.packed(name)
	if err != nil {
		return "", err
	}
	return packed[name], nil
}

// packed returns the packed refs that start with prefix.
func (s Store) packed(prefix string) (map[string]string, error) {
	out := map[string]string{}
	f, err := os.Open(filepath.Join(s.Common, "packed-refs"))
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	p := []byte(prefix)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) < 42 || line[0] == '#' || line[0] == '^' {
			continue
		}
		name := line[41:]
		if bytes.HasPrefix(name, p) {
			out[string(name)] = string(line[:40])
		}
	}
	return out, sc.Err()
}

// List returns every ref under prefix (which ends in "/"), loose ones
// overriding packed ones as in git.
func (s Store) List(prefix string) (map[string]string, error) {
	refs, err := s.packed(prefix)
	if err != nil {
		return nil, err
	}
	root := filepath.Join(s.Common, prefix)
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
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
		v := strings.TrimSpace(string(b))
		if len(v) == 40 {
			refs[filepath.ToSlash(rel)] = v
		}
		return nil
	})
	return refs, err
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
	if err := lock.Close(); err != nil {
		return err
	}
	if err := os.Rename(path+".lock", path); err != nil {
		return err
	}
	committed = true
	return nil
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
