package hooks

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/internal/testgit"
)

// prePushRepo is a repository with one ledger event and a bare remote.
func prePushRepo(t *testing.T) (*gitrepo.Repo, string) {
	t.Helper()
	testgit.Isolate(t)
	dir := testgit.Init(t)
	remote := filepath.Join(t.TempDir(), "remote.git")
	testgit.Run(t, dir, "init", "-q", "--bare", remote)
	repo, err := gitrepo.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := gitstore.EnsureWriterID(repo.CommonDir); err != nil {
		t.Fatal(err)
	}
	l := gitstore.Open(repo, gitstore.Options{})
	if _, err := l.AppendUser([]gitstore.Draft{{Kind: "note", ID: "n1", Data: []byte(`{"text":"hi"}`)}}); err != nil {
		t.Fatal(err)
	}
	return repo, remote
}

func TestPrePushChecksEachPushedBranchOnce(t *testing.T) {
	repo, remote := prePushRepo(t)
	head := testgit.Run(t, repo.WorkTree, "rev-parse", "HEAD")
	refs, err := ParsePushedRefs(strings.NewReader(
		"HEAD " + head + " refs/heads/wt/demo-wp1 " + strings.Repeat("0", 40) + "\n" +
			"refs/heads/main " + head + " refs/heads/main " + strings.Repeat("0", 40) + "\n" +
			"(delete) " + strings.Repeat("0", 40) + " refs/heads/gone " + head + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	p := &PrePush{Repo: repo, Remote: remote, URL: remote, Refs: refs, Out: &out}
	var seen []string
	refuse := errors.New("wt/demo-wp1 is not verified")
	err = p.Run(PrePushOptions{BranchVerified: func(l *gitstore.Ledger, branch, commit string) error {
		if commit != head {
			t.Errorf("%s checked at %s, pushed at %s", branch, commit, head)
		}
		seen = append(seen, branch)
		if branch == "wt/demo-wp1" {
			return refuse
		}
		return nil
	}})
	if !errors.Is(err, refuse) || !strings.Contains(err.Error(), "pre-push wt-verified") || !strings.Contains(err.Error(), AllowUnverifiedEnv) {
		t.Fatalf("want the wt-verified refusal naming %s, got %v", AllowUnverifiedEnv, err)
	}
	if strings.Join(seen, ",") != "wt/demo-wp1" {
		t.Errorf("checked %v; want the refused branch only, the first refusal stops the run", seen)
	}

	seen = nil
	t.Setenv(AllowUnverifiedEnv, "1")
	if err := p.Run(PrePushOptions{BranchVerified: func(*gitstore.Ledger, string, string) error { return refuse }}); err != nil {
		t.Fatalf("%s=1 still refused: %v", AllowUnverifiedEnv, err)
	}
}

func TestPrePushSendsTheLedgerRefAlong(t *testing.T) {
	repo, remote := prePushRepo(t)
	ref, err := gitstore.Open(repo, gitstore.Options{}).WriterRef()
	if err != nil || ref == "" {
		t.Fatalf("no writer ref: %q %v", ref, err)
	}
	var out bytes.Buffer
	p := &PrePush{Repo: repo, Remote: remote, URL: remote, Out: &out}
	asked := false
	no := func() (bool, error) { asked = true; return false, nil }
	if err := p.Run(PrePushOptions{PushLedger: no}); err != nil || !asked {
		t.Fatalf("run without push: err %v, asked %v", err, asked)
	}
	if got := testgit.Run(t, remote, "for-each-ref", "--format=%(refname)"); got != "" {
		t.Fatalf("pushed with push_on_pre_push off: %s", got)
	}

	t.Setenv(InPrePushEnv, "1")
	asked = false
	if err := p.Run(PrePushOptions{PushLedger: func() (bool, error) { asked = true; return true, nil }}); err != nil || asked {
		t.Fatalf("inside a pre-push: err %v, config asked %v (the nested push must not push again)", err, asked)
	}
	t.Setenv(InPrePushEnv, "")

	if err := p.Run(PrePushOptions{PushLedger: func() (bool, error) { return true, nil }}); err != nil {
		t.Fatalf("push: %v\n%s", err, out.String())
	}
	local := testgit.Run(t, repo.WorkTree, "rev-parse", ref)
	if got := testgit.Run(t, remote, "rev-parse", ref); got != local {
		t.Fatalf("remote %s = %s, want %s", ref, got, local)
	}
	if !strings.Contains(out.String(), "pushed "+ref) {
		t.Errorf("no report of the push in:\n%s", out.String())
	}
}

func TestPrePushRefusesAnUnsoundLedger(t *testing.T) {
	repo, remote := prePushRepo(t)
	ref, _ := gitstore.Open(repo, gitstore.Options{}).WriterRef()
	// A plain commit on the writer ref is not an event.
	tree := testgit.Run(t, repo.WorkTree, "write-tree")
	bogus := testgit.Run(t, repo.WorkTree, "commit-tree", tree, "-m", "not an event")
	testgit.Run(t, repo.WorkTree, "update-ref", ref, bogus)
	var out bytes.Buffer
	p := &PrePush{Repo: repo, Remote: remote, URL: remote, Out: &out}
	pushed := false
	err := p.Run(PrePushOptions{PushLedger: func() (bool, error) { pushed = true; return true, nil }})
	if err == nil || !strings.Contains(err.Error(), "pre-push ledger-verify") {
		t.Fatalf("want a ledger-verify refusal, got %v\n%s", err, out.String())
	}
	if pushed || !strings.Contains(out.String(), "agentproto: ") {
		t.Errorf("pushed %v after a refusal; findings printed:\n%s", pushed, out.String())
	}
}
