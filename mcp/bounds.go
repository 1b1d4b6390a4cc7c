package mcp

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/worktree"
)

// Bounds of session_output: a client reads the end of a turn (the last
// 40 to 60 lines say how it ended), never megabytes of it.
const (
	defaultOutputLines = 60
	maxOutputLines     = 2000
	maxLineBytes       = 4 << 10
)

// cutLine keeps the start of a line past maxLineBytes, and says so.
func cutLine(p []byte) string {
	if len(p) <= maxLineBytes {
		return string(p)
	}
	return fmt.Sprintf("%s […cut %d bytes]", bytes.ToValidUTF8(p[:maxLineBytes], nil), len(p)-maxLineBytes)
}

// checkDir refuses a session directory outside the repository and its
// agentproto worktrees: the client is an LLM, and /etc or $HOME is no
// place to start an agent.
func (e *env) checkDir(dir string) error {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return fault.Invalidf("dir %s: %v", dir, err)
	}
	roots := []string{e.repo.WorkTree}
	if wts, err := worktree.All(e.repo); err == nil {
		for _, m := range wts {
			roots = append(roots, m.Path)
		}
	}
	for _, r := range roots {
		if rr, err := filepath.EvalSymlinks(r); err == nil && (real == rr || strings.HasPrefix(real, rr+string(filepath.Separator))) {
			return nil
		}
	}
	return fault.Refusedf("dir %s is outside the repository %s and its worktrees: give a directory inside them, or a worktree", dir, e.repo.WorkTree)
}
