package hooks

import (
	"fmt"
	"os"
	"strings"

	"github.com/agentproto/agentproto/gitstore"
)

// Environment variables a pre-push run reads.
const (
	// InPrePushEnv guards against recursion: the ledger push made from
	// inside a pre-push hook must not run the hook's own push again.
	InPrePushEnv = "AGENTPROTO_IN_PRE_PUSH"
	// AllowUnverifiedEnv lets one push of an unverified wt/* branch through.
	AllowUnverifiedEnv = "AGENTPROTO_PUSH_UNVERIFIED"
)

// PrePushOptions are the checks of a pre-push run beyond the registered
// ones, and what it sends along.
type PrePushOptions struct {
	// BranchVerified refuses branch pushed at commit when that is not a
	// state its latest verification passed; nil skips the check. (The
	// verdicts are the pipeline's, which depends on this package.)
	BranchVerified func(l *gitstore.Ledger, branch, commit string) error
	// PushLedger says whether this clone's ledger ref goes along with the
	// push ([sync] push_on_pre_push); asked only once every check passed.
	PushLedger func() (bool, error)
}

// Run runs the registered checks, then verifies the ledger and the pushed
// work-package branches; the first failure refuses the push. Then it
// pushes the ledger ref along when asked to.
func (p *PrePush) Run(o PrePushOptions) error {
	if err := RunPrePush(p); err != nil {
		return err
	}
	l := gitstore.Open(p.Repo, gitstore.Options{})
	checks := []PrePushCheck{ledgerVerified(l)}
	if o.BranchVerified != nil {
		checks = append(checks, branchesVerified(l, o.BranchVerified))
	}
	for _, c := range checks {
		if err := c.Run(p); err != nil {
			return fmt.Errorf("pre-push %s: %w", c.Name, err)
		}
	}
	if os.Getenv(InPrePushEnv) != "" || o.PushLedger == nil {
		return nil
	}
	push, err := o.PushLedger()
	if err != nil || !push {
		return err
	}
	return p.pushLedger(l)
}

// ledgerVerified refuses the push when `ledger verify` has findings,
// printing each.
func ledgerVerified(l *gitstore.Ledger) PrePushCheck {
	return PrePushCheck{Name: "ledger-verify", Run: func(p *PrePush) error {
		rep, err := l.Verify()
		if err != nil {
			return err
		}
		blocking := 0
		for _, fd := range rep.Findings {
			fmt.Fprintf(p.Out, "agentproto: %s: %s %s\n", fd.Code, fd.Ref, fd.Message)
			// Another writer rewriting its own history says nothing of
			// what this push sends; the events stay kept either way.
			if fd.Code != "rewritten-ref" {
				blocking++
			}
		}
		if blocking > 0 {
			return fmt.Errorf("the ledger has %d findings (git agentproto ledger verify); push refused", blocking)
		}
		return nil
	}}
}

// branchesVerified refuses to push a work package's branch (wt/PROJECT-wpN)
// with any commit but a state its latest verification passed. Both sides of
// each pushed ref are looked at, so HEAD:wt/demo-wp1 is caught as well.
func branchesVerified(l *gitstore.Ledger, check func(l *gitstore.Ledger, branch, commit string) error) PrePushCheck {
	return PrePushCheck{Name: "wt-verified", Run: func(p *PrePush) error {
		if os.Getenv(AllowUnverifiedEnv) != "" {
			return nil
		}
		for _, r := range p.Refs {
			if r.Deleting() {
				continue
			}
			seen := map[string]bool{}
			for _, ref := range []string{r.LocalRef, r.RemoteRef} {
				branch, ok := strings.CutPrefix(ref, "refs/heads/")
				if !ok || seen[branch] {
					continue
				}
				seen[branch] = true
				if err := check(l, branch, r.LocalSHA); err != nil {
					return fmt.Errorf("%w (or push with %s=1, or git push --no-verify)", err, AllowUnverifiedEnv)
				}
			}
		}
		return nil
	}}
}

// pushLedger sends this clone's ledger ref to the same remote, unless the
// user is pushing it already.
func (p *PrePush) pushLedger(l *gitstore.Ledger) error {
	ref, err := l.WriterRef()
	if err != nil || ref == "" {
		return err
	}
	for _, r := range p.Refs {
		if r.RemoteRef == ref {
			return nil
		}
	}
	cmd := p.Repo.Command("push", "--no-verify", "--quiet", p.Remote, ref+":"+ref)
	cmd.Env = append(cmd.Env, InPrePushEnv+"=1")
	cmd.Stdout, cmd.Stderr = p.Out, p.Out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("pushing the ledger ref %s to %s failed: %v", ref, p.Remote, err)
	}
	fmt.Fprintf(p.Out, "agentproto: pushed %s to %s\n", ref, p.Remote)
	return nil
}
