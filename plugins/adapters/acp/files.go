package acp

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
)

// maxReadBytes bounds one fs/read_text_file answer: it travels as one
// JSON-RPC line, and source files past this size are not text to edit.
const maxReadBytes = 32 << 20

// files answers the agent's file-system calls inside the worktree. Every
// access goes through an os.Root opened on it, so neither ".." nor a
// symlink leads outside, whatever happens between check and use.
type files struct {
	root *os.Root
	per  *Perimeter
}

func openFiles(per *Perimeter) (*files, error) {
	r, err := os.OpenRoot(per.root)
	if err != nil {
		return nil, err
	}
	return &files{root: r, per: per}, nil
}

// read returns the text of rel, from line (1-based, 0 for the start) and
// at most limit lines (0 for all).
func (f *files) read(rel string, line, limit int) (string, error) {
	fh, err := f.root.Open(rel)
	if err != nil {
		return "", err
	}
	defer fh.Close()
	if fi, err := fh.Stat(); err == nil && fi.IsDir() {
		return "", fmt.Errorf("%s is a directory", rel)
	}
	b, err := io.ReadAll(io.LimitReader(fh, maxReadBytes+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxReadBytes {
		return "", fmt.Errorf("%s is larger than %d MiB", rel, maxReadBytes>>20)
	}
	text := string(b)
	if line <= 1 && limit <= 0 {
		return text, nil
	}
	lines := strings.SplitAfter(text, "\n")
	start := min(max(line-1, 0), len(lines))
	end := len(lines)
	if limit > 0 && start+limit < end {
		end = start + limit
	}
	return strings.Join(lines[start:end], ""), nil
}

// write replaces rel with content, making parent directories, keeping the
// mode of a file that exists. The caller has checked the perimeter.
func (f *files) write(rel, content string) error {
	if dir := path.Dir(rel); dir != "." {
		if err := f.root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	mode := fs.FileMode(0o644)
	if fi, err := f.root.Lstat(rel); err == nil {
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file", rel)
		}
		mode = fi.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	fh, err := f.root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(fh, content); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}

func (f *files) close() { f.root.Close() }
