package peers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitrepo"
)

// ClaimRefPrefix holds one ref per claimed todo on the arbitrating remote:
// refs/agentproto/claims/<goal>/<todo>.
const ClaimRefPrefix = "refs/agentproto/claims/"

// Claim record states on a claim ref.
const (
	ClaimHeld     = "held"
	ClaimReleased = "released"
)

// Arbiters of a claim, as recorded in the ledger.
const (
	ArbiterRemote = "remote"
	ArbiterLocal  = "local"
)

// maxClaimRecord bounds what is read from a claim ref another clone wrote.
const maxClaimRecord = 4096

// ClaimRecord is the content of a claim ref's commit (file claim.json).
type ClaimRecord struct {
	Goal   string `json:"goal"`
	Todo   string `json:"todo"`
	Agent  string `json:"agent"`
	Until  string `json:"lease_until"`
	Writer string `json:"writer"`
	State  string `json:"state"`
}

// ParseClaimRecord decodes and checks a claim record strictly: claim refs
// come from other clones and are untrusted.
func ParseClaimRecord(b []byte) (*ClaimRecord, error) {
	if len(b) > maxClaimRecord {
		return nil, fmt.Errorf("claim record is %d bytes, over %d", len(b), maxClaimRecord)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var r ClaimRecord
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("claim record: %w", err)
	}
	if dec.More() {
		return nil, errors.New("claim record: trailing data")
	}
	for _, f := range []struct{ what, v string }{{"goal", r.Goal}, {"todo", r.Todo}, {"agent", r.Agent}, {"writer", r.Writer}} {
		if err := ValidateName("claim record "+f.what, f.v); err != nil {
			return nil, err
		}
	}
	if err := checkRefNames(r.Goal, r.Todo); err != nil {
		return nil, err
	}
	if r.State != ClaimHeld && r.State != ClaimReleased {
		return nil, fmt.Errorf("claim record state %q is not %s or %s", r.State, ClaimHeld, ClaimReleased)
	}
	if _, err := time.Parse(time.RFC3339, r.Until); err != nil {
		return nil, fmt.Errorf("claim record lease_until %q: %v", r.Until, err)
	}
	return &r, nil
}

// ClaimRef names the claim ref of a todo (both names already validated).
func ClaimRef(goal, todo string) string { return ClaimRefPrefix + goal + "/" + todo }

// checkRefNames refuses goal and todo ids that are valid names but not
// valid ref components (git check-ref-format): "..", a ".lock" or "." end.
func checkRefNames(goal, todo string) error {
	for _, n := range []string{goal, todo} {
		if strings.Contains(n, "..") || strings.HasSuffix(n, ".lock") || strings.HasSuffix(n, ".") {
			return fault.Invalidf("%q cannot name a claim ref: no \"..\", no \".\" or \".lock\" at the end; use --local", n)
		}
	}
	return nil
}

// Arbiter takes claims on a remote by create-only and compare-and-swap
// pushes through the git CLI, so that the user's credentials apply and
// any git server (a bare repository, a forge) arbitrates without hooks.
type Arbiter struct {
	Repo   *gitrepo.Repo
	Remote string
	Writer string
}

// NoRemoteError says claims have no arbiter; the command suggests --local.
type NoRemoteError struct{ Why string }

func (e *NoRemoteError) Error() string {
	return "no remote can arbitrate claims: " + e.Why + "; pass --local to claim on this clone only"
}

// ResolveClaimsRemote picks the arbitrating remote: the configured one, or
// the one `init` gave the ledger fetch refspec (the sync remote first).
func ResolveClaimsRemote(repo *gitrepo.Repo, configured, syncRemote string) (string, error) {
	if configured != "" {
		if _, err := repo.RemoteURL(configured); err != nil {
			return "", &NoRemoteError{Why: fmt.Sprintf("[claims] remote %q is not a remote of this clone", configured)}
		}
		return configured, nil
	}
	out, _ := repo.Git("config", "--get-regexp", `^remote\..*\.fetch$`)
	var found []string
	for _, l := range strings.Split(string(out), "\n") {
		key, val, ok := strings.Cut(strings.TrimSpace(l), " ")
		if !ok || val != gitstore.FetchRefspecs("")[0] {
			continue
		}
		name := strings.TrimSuffix(strings.TrimPrefix(key, "remote."), ".fetch")
		if name == syncRemote {
			return name, nil
		}
		found = append(found, name)
	}
	if len(found) == 0 {
		return "", &NoRemoteError{Why: "no remote has the ledger fetch refspec (git agentproto init --remote NAME) and [claims] remote is unset"}
	}
	return found[0], nil
}

// unreachable wraps a git failure talking to the remote.
func (a *Arbiter) unreachable(err error) error {
	return &NoRemoteError{Why: fmt.Sprintf("remote %s did not answer: %v", a.Remote, err)}
}

// Read returns the remote claim ref's commit and record; "" and nil when
// the todo was never claimed through this remote.
func (a *Arbiter) Read(goal, todo string) (string, *ClaimRecord, error) {
	if err := checkRefNames(goal, todo); err != nil {
		return "", nil, err
	}
	ref := ClaimRef(goal, todo)
	refs, err := a.Repo.RemoteRefs(a.Remote, ref)
	if err != nil {
		return "", nil, a.unreachable(err)
	}
	oid := ""
	for _, r := range refs {
		if r.Name == ref {
			oid = r.ID
		}
	}
	if oid == "" {
		return "", nil, nil
	}
	if !a.Repo.HasCommit(oid) {
		// Forced: the local copy only mirrors the remote, which alone decides.
		if _, err := a.Repo.Git("fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--", a.Remote, "+"+ref+":"+ref); err != nil {
			return "", nil, a.unreachable(err)
		}
		if got, err := a.Repo.Commit(ref); err == nil {
			oid = got
		}
	}
	b, err := a.Repo.Blob(oid, "claim.json")
	if err != nil {
		return "", nil, fmt.Errorf("claim ref %s at %s has no claim.json: %w", ref, oid, err)
	}
	r, err := ParseClaimRecord(b)
	if err != nil {
		return "", nil, fmt.Errorf("claim ref %s at %s: %w", ref, oid, err)
	}
	if r.Goal != goal || r.Todo != todo {
		return "", nil, fmt.Errorf("claim ref %s at %s names %s/%s", ref, oid, r.Goal, r.Todo)
	}
	return oid, r, nil
}

// commit writes rec as a commit whose parent is old, so that every update
// of a claim ref is a fast-forward and a plain non-forcing fetch takes it.
func (a *Arbiter) commit(rec *ClaimRecord, old string) (string, error) {
	b, _ := json.Marshal(rec)
	blob, err := a.Repo.GitInput(b, "hash-object", "-w", "--stdin")
	if err != nil {
		return "", err
	}
	tree, err := a.Repo.GitInput([]byte("100644 blob "+strings.TrimSpace(string(blob))+"\tclaim.json\n"), "mktree")
	if err != nil {
		return "", err
	}
	args := []string{"-c", "user.name=" + rec.Agent, "-c", "user.email=" + rec.Writer + "@agentproto.invalid",
		"commit-tree", strings.TrimSpace(string(tree)), "-m", fmt.Sprintf("claim %s/%s: %s %s until %s", rec.Goal, rec.Todo, rec.State, rec.Agent, rec.Until)}
	if old != "" {
		args = append(args, "-p", old)
	}
	c, err := a.Repo.Git(args...)
	return strings.TrimSpace(string(c)), err
}

// errLost means the ref was not at the expected value: another clone won.
var errLost = errors.New("lost the race")

// swap moves the claim ref from old ("" = must not exist) to a commit of
// rec in one atomic push. errLost when the remote no longer matches old.
func (a *Arbiter) swap(rec *ClaimRecord, old string) (string, error) {
	ref := ClaimRef(rec.Goal, rec.Todo)
	next, err := a.commit(rec, old)
	if err != nil {
		return "", err
	}
	_, perr := a.Repo.Git("push", "--quiet", "--atomic", "--no-verify",
		"--force-with-lease="+ref+":"+old, "--", a.Remote, next+":"+ref)
	if perr == nil {
		return next, nil
	}
	// Whatever git said, the remote's ref decides: moved means lost; not
	// moved means the push itself failed (unreachable, refused by the forge).
	now, _, rerr := a.Read(rec.Goal, rec.Todo)
	switch {
	case rerr != nil:
		return "", rerr
	case now == next:
		return next, nil
	case now != old:
		return "", errLost
	}
	var ge *gitrepo.GitError
	if errors.As(perr, &ge) && strings.Contains(ge.Stderr, "remote rejected") {
		return "", fault.Refusedf("remote %s refused the claim ref %s (a protected ref? see docs/peer-supervisor.md): %v", a.Remote, ref, perr)
	}
	return "", a.unreachable(perr)
}
