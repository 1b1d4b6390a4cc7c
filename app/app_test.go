package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/internal/testgit"
	"github.com/agentproto/agentproto/sessions"
)

func testRepo(t *testing.T) *gitrepo.Repo {
	t.Helper()
	testgit.Isolate(t)
	repo, err := gitrepo.Discover(testgit.Init(t))
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

func TestCheckInsideRefusesADirectoryOutsideTheRepository(t *testing.T) {
	repo := testRepo(t)
	sub := filepath.Join(repo.WorkTree, "sub")
	os.Mkdir(sub, 0o755)
	if err := CheckInside(repo, sub); err != nil {
		t.Fatalf("a directory of the work tree: %v", err)
	}
	if err := CheckInside(repo, t.TempDir()); fault.KindOf(err) != fault.Refused {
		t.Fatalf("a directory outside: %v, want refused", err)
	}
}

func TestResolveTakesNoOption(t *testing.T) {
	repo := testRepo(t)
	if resolve(repo, "main") == "" {
		t.Fatal("main names no commit")
	}
	if got := resolve(repo, "--all"); got != "" {
		t.Fatalf("--all resolved to %q", got)
	}
}

// A use case that needs no daemon never asks for one, and one that reads
// the records refuses a bad id before it reads anything.
func TestRecordsRefusesBadIDs(t *testing.T) {
	repo := testRepo(t)
	e := Open(repo, nil)
	e.Sessions = func() (*sessions.Client, error) { return nil, errors.New("the daemon was asked for") }
	for _, ids := range [][]string{nil, {"../etc"}} {
		if _, err := e.Records(context.Background(), ids); fault.KindOf(err) != fault.Invalid {
			t.Errorf("%v: %v, want invalid", ids, err)
		}
	}
	if rows, err := e.Worktrees(context.Background(), false); err != nil || len(rows) != 0 {
		t.Fatalf("worktrees of a new repository: %v %v", rows, err)
	}
}

// The MCP server's daemon keeps the profiles' key variables, as the
// CLI's does: a dispatch the daemon runs starts sessions of those profiles.
func TestOpenStartsTheDaemonWithTheProfilesKeys(t *testing.T) {
	repo := testRepo(t)
	conf := "[profiles.cheap]\nadapter = \"claude-code\"\nauth = \"api-key\"\nkey_env = \"CHEAP_LLM_KEY\"\n"
	if err := os.WriteFile(filepath.Join(repo.WorkTree, "agentproto.toml"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Open(repo, []string{"serve"}).Sessions()
	if err != nil {
		t.Fatal(err)
	}
	if len(c.KeepEnv) != 1 || c.KeepEnv[0] != "CHEAP_LLM_KEY" {
		t.Fatalf("the daemon keeps %q, want the profile's key variable", c.KeepEnv)
	}
}
