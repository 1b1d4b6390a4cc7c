package worktree

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/agentproto/agentproto/internal/gitrepo"
)

// gitCheckout fills the worktree at path, whose admin dir, branch and
// .git file are already made, with git's own checkout: the one git
// worktree add runs (reset --hard in the new worktree), so filters,
// ident, encodings, sparse patterns and lazy fetches of a partial clone
// are git's. With submodules it then runs git submodule update --init
// --recursive. An interrupt kills git and waits for it before the caller
// removes what was made.
func gitCheckout(repo *gitrepo.Repo, path, admin string, submodules bool, interrupted <-chan struct{}) error {
	if err := copySparseSettings(repo, admin); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-interrupted:
			cancel()
		case <-ctx.Done():
		}
	}()
	steps := [][]string{{"reset", "--hard", "--no-recurse-submodules", "-q"}}
	if submodules {
		steps = append(steps, []string{"submodule", "update", "--init", "--recursive", "-q"})
	}
	for _, args := range steps {
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Dir = path
		cmd.Env = worktreeEnv()
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		select {
		case <-interrupted:
			return errInterrupted
		default:
		}
		if err != nil {
			return fmt.Errorf("git %s in %s: %v: %s", strings.Join(args, " "), path, err, strings.TrimSpace(stderr.String()))
		}
	}
	return nil
}

// worktreeEnv is our environment without what would point git at another
// repository than the one the working directory is in.
func worktreeEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_PREFIX", "GIT_OBJECT_DIRECTORY":
			continue
		}
		env = append(env, kv)
	}
	return env
}

// copySparseSettings gives the new worktree the sparse patterns and the
// per-worktree config of the worktree the command runs in, as git
// worktree add does.
func copySparseSettings(repo *gitrepo.Repo, admin string) error {
	if b, err := os.ReadFile(filepath.Join(repo.GitDir, "info", "sparse-checkout")); err == nil {
		if err := os.MkdirAll(filepath.Join(admin, "info"), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(admin, "info", "sparse-checkout"), b, 0o644); err != nil {
			return err
		}
	}
	src := filepath.Join(repo.GitDir, "config.worktree")
	b, err := os.ReadFile(src)
	if err != nil {
		return nil
	}
	dst := filepath.Join(admin, "config.worktree")
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		return err
	}
	// The main worktree's own settings do not carry over.
	for _, key := range []string{"core.bare", "core.worktree"} {
		exec.Command("git", "config", "--file", dst, "--unset-all", key).Run()
	}
	return nil
}
