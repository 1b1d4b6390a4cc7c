package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/repopath"
	"github.com/agentproto/agentproto/judge"
	"github.com/agentproto/agentproto/plans"
	"github.com/agentproto/agentproto/worktree"
)

// AppliedWiring is a wiring line and what consolidate did with it.
type AppliedWiring struct {
	WP     string `json:"wp"`
	File   string `json:"file"`
	Line   string `json:"line"`
	Status string `json:"status"` // applied, present
}

// Consolidation is the data of a plan_consolidated event.
type Consolidation struct {
	Project  string          `json:"project"`
	Worktree string          `json:"worktree"`
	Branch   string          `json:"branch"`
	Head     string          `json:"head"`
	Merged   []string        `json:"merged"`
	Wiring   []AppliedWiring `json:"wiring"`
	// Config is each shared JSON, TOML or YAML file the snippets merge
	// into, with the diff of the merge.
	Config     []ConfigMerge     `json:"config"`
	Collisions []ConfigCollision `json:"collisions,omitempty"`
	// Renames are the --rename choices this consolidation used; they
	// stand for the next one that is given none.
	Renames  []string        `json:"renames,omitempty"`
	Findings []judge.Finding `json:"findings"`
	Gate     *judge.Gate     `json:"gate,omitempty"`
	OK       bool            `json:"ok"`
	// DryRun marks the result of ConsolidateDryRun: WouldMerge lists what
	// it would merge, and nothing was written.
	DryRun     bool     `json:"dry_run,omitempty"`
	WouldMerge []string `json:"would_merge,omitempty"`
	// Checkpointed are the work packages checkpointed just before, when
	// consolidate was asked to (--checkpoint).
	Checkpointed []string `json:"checkpointed,omitempty"`
}

// order returns the WPs in dependency order (stable by plan order).
func order(p *plans.Project) []plans.WP {
	done := map[string]bool{}
	var out []plans.WP
	for len(out) < len(p.Plan.WPs) {
		progressed := false
		for _, wp := range p.Plan.WPs {
			if done[wp.ID] {
				continue
			}
			ready := true
			for _, d := range wp.DependsOn {
				if !done[d] {
					ready = false
				}
			}
			if ready {
				done[wp.ID] = true
				out = append(out, wp)
				progressed = true
			}
		}
		if !progressed {
			break // a cycle: plan check refuses it before freeze
		}
	}
	return out
}

// IntegrationWorktree returns the single writer's worktree, making it from
// the frozen base when it does not exist yet.
func (e *Env) IntegrationWorktree(root string) (*worktree.Meta, error) {
	slug := IntegrationSlug(e.Project.Name)
	if m, err := worktree.Load(e.Repo, slug); err == nil {
		return m, nil
	}
	frozen, err := e.Frozen()
	if err != nil {
		return nil, err
	}
	// Made and recorded as worktree new makes one, without setup hooks:
	// the single writer merges and runs the gate, nothing more.
	mg := &worktree.Manager{Repo: e.Repo, Config: config.Worktree{Root: root}, Out: io.Discard, By: "consolidate",
		Ledger: func() (gitstore.Store, error) { return e.Ledger, nil }}
	return mg.New(worktree.CreateOptions{Slug: slug, BaseName: frozen.Base, BaseCommit: frozen.BaseCommit, NoSetup: true})
}

// Consolidate is the single writer: it merges the verified WP branches into
// the integration worktree in dependency order, applies the shared-file
// wiring the reports list — lines to plain files, snippets merged by key
// into JSON, TOML and YAML files — and runs the gate. A conflict or a
// collision stops it with the list, and the integration branch is put back
// as it was; two snippets changing one key stop it before anything is
// written, until renames move one of them aside.
func (e *Env) Consolidate(root string, gateTimeout time.Duration, renames ...Rename) (*Consolidation, error) {
	frozen, err := e.Frozen()
	if err != nil {
		return nil, err
	}
	if e, err = e.atFreeze(frozen); err != nil {
		return nil, err
	}
	st, err := ReadState(e.Ledger, e.Project.Name)
	if err != nil {
		return nil, err
	}
	c := &Consolidation{Project: e.Project.Name, Merged: []string{}, Wiring: []AppliedWiring{}, Config: []ConfigMerge{}, Findings: []judge.Finding{}}
	wps := order(e.Project)
	tips, ready := e.readiness(wps, st) // the verified commit of each WP, merged as is
	c.Findings = append(c.Findings, ready...)
	if len(c.Findings) > 0 {
		return c, fault.Refusedf("consolidate needs every work package verified and checkpointed")
	}
	if renames, err = standingRenames(renames, st); err != nil {
		return c, err
	}
	configs, err := e.planConfig(wps, st, frozen.BaseCommit, renames, c)
	if err != nil {
		return c, err
	}
	if hasErrors(c.Findings) {
		return c, fmt.Errorf("consolidate stopped: %d findings in the config snippets; nothing was written", len(c.Findings))
	}
	m, err := e.IntegrationWorktree(root)
	if err != nil {
		return nil, err
	}
	c.Worktree, c.Branch = m.Path, m.Branch
	wt := worktree.Repo(e.Repo, m)
	if s, err := worktree.State(e.Repo, m); err != nil {
		return nil, err
	} else if !s.Clean {
		return nil, fault.Refusedf("the integration worktree %s has uncommitted changes; nothing was merged", m.Path)
	}
	startOut, err := wt.Git("rev-parse", "HEAD")
	if err != nil {
		return nil, err
	}
	start := strings.TrimSpace(string(startOut))
	rollback := func() { wt.Git("reset", "-q", "--hard", start) }

	merged, err := e.mergeChain(wt, start, wps, tips, c)
	if err != nil {
		return c, err
	}
	if merged != start {
		if _, err := wt.Git("reset", "-q", "--hard", merged); err != nil {
			rollback()
			return c, err
		}
	}

	wiring, findings := collectWiring(e.Project, wps, st)
	c.Findings = append(c.Findings, findings...)
	// Writes go through the worktree's root: no path can leave it, and
	// none is written through a symlink the merges brought.
	wtRoot, err := os.OpenRoot(m.Path)
	if err != nil {
		rollback()
		return c, err
	}
	defer wtRoot.Close()
	for _, w := range wiring {
		if err := checkWiringOnDisk(wtRoot, w.File); err != nil {
			c.Findings = append(c.Findings, judge.Finding{Code: "wiring-through-symlink", WP: w.WP, File: w.File, Message: err.Error()})
		}
	}
	if hasErrors(c.Findings) {
		rollback()
		return c, fmt.Errorf("consolidate stopped: %d findings in the reports; the integration branch is unchanged", len(c.Findings))
	}
	changedFiles, err := applyWiring(wtRoot, wiring, c)
	if err != nil {
		rollback()
		return c, err
	}
	changedConfig, err := applyConfig(wtRoot, configs, c)
	if err != nil {
		rollback()
		return c, err
	}
	changedFiles = append(changedFiles, changedConfig...)
	if len(changedFiles) > 0 {
		if _, err := wt.Git(append([]string{"add", "--"}, changedFiles...)...); err != nil {
			rollback()
			return c, err
		}
		if _, err := wt.Git("commit", "-q", "-m", "consolidate "+e.Project.Name+": shared-file wiring"); err != nil {
			rollback()
			return c, err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), gateTimeout)
	defer cancel()
	gate, log := judge.RunGate(ctx, m.Path, frozen.Gate)
	gate.Log = "gate.log"
	c.Gate = &gate
	head, _ := wt.Git("rev-parse", "HEAD")
	c.Head = strings.TrimSpace(string(head))
	c.OK = gate.ExitCode == 0 && !gate.Piped
	if !c.OK {
		c.Findings = append(c.Findings, judge.Finding{Code: "gate-failed", File: "", Message: fmt.Sprintf("the gate %q exited %d in the integration worktree", gate.Command, gate.ExitCode)})
	}
	// A re-run that reaches the same head with the same verdict is the
	// recorded outcome again (only the gate's duration differs): nothing
	// new to record. The same head can come back with another verdict (a
	// gate that fails now, or timed out on a loaded machine), so the id
	// is the head and when.
	if !sameOutcome(st.Consolidated, c) {
		id := fmt.Sprintf("pipeline/%s/consolidate/%s/%d", e.Project.Name, c.Head, time.Now().UnixNano())
		if err := e.record(KindConsolidated, id, c, []gitstore.AttachmentInput{{Name: "gate.log", Content: log}}); err != nil {
			return c, err
		}
	}
	if !c.OK {
		return c, fmt.Errorf("the gate failed in the integration worktree (exit %d)", gate.ExitCode)
	}
	return c, nil
}

// sameOutcome reports whether a consolidation repeats the recorded one:
// the same head, merges, gate command, exit code and findings. Durations
// and whether wiring was applied now or found present are not the outcome.
func sameOutcome(prev, c *Consolidation) bool {
	if prev == nil || prev.Gate == nil || c.Gate == nil || prev.Head != c.Head || prev.OK != c.OK ||
		prev.Gate.Command != c.Gate.Command || prev.Gate.ExitCode != c.Gate.ExitCode || prev.Gate.Piped != c.Gate.Piped {
		return false
	}
	a, _ := json.Marshal([]any{prev.Merged, prev.Findings})
	b, _ := json.Marshal([]any{c.Merged, c.Findings})
	return string(a) == string(b)
}

// readiness finds the WPs not ready to merge: not verified, not
// checkpointed, or whose branch is not at a state a passing verification
// saw. It returns the verified tip of each ready WP.
func (e *Env) readiness(wps []plans.WP, st *State) (map[string]string, []judge.Finding) {
	tips := map[string]string{}
	var fs []judge.Finding
	branches, err := e.wpBranches()
	if err != nil {
		return nil, []judge.Finding{{Code: "not-verified-state", Message: err.Error()}}
	}
	for _, wp := range wps {
		if u, ok := st.UntrustedVerification(wp.ID); ok {
			fs = append(fs, judge.Finding{Code: "untrusted-verification", WP: wp.ID, Message: u.String()})
		} else if !st.Verified(wp.ID) {
			fs = append(fs, judge.Finding{Code: "not-verified", WP: wp.ID, Message: wp.ID + "'s latest verification did not pass"})
		} else if _, ok := st.Checkpoints[wp.ID]; !ok {
			fs = append(fs, judge.Finding{Code: "not-checkpointed", WP: wp.ID, Message: wp.ID + " has no checkpoint: its work is not committed on its branch"})
		} else if tip, err := e.verifiedTip(st, wp.ID, branches); err != nil {
			fs = append(fs, judge.Finding{Code: "not-verified-state", WP: wp.ID, Message: err.Error()})
		} else {
			tips[wp.ID] = tip
		}
	}
	return tips, fs
}

func hasErrors(fs []judge.Finding) bool {
	for _, f := range fs {
		if f.Code != "report-missing" {
			return true
		}
	}
	return false
}

// collectWiring gathers the wiring of every WP's report and finds the
// collisions: one line wired by two WPs, one name claimed twice, wiring
// into a file that is not shared.
func collectWiring(p *plans.Project, wps []plans.WP, st *State) ([]AppliedWiring, []judge.Finding) {
	var out []AppliedWiring
	var fs []judge.Finding
	lineBy := map[string]string{}
	claimBy := map[string]string{}
	for _, wp := range wps {
		v := st.Verifications[wp.ID]
		for _, f := range v.Findings {
			if strings.HasPrefix(f, "report-malformed") {
				fs = append(fs, judge.Finding{Code: "report-malformed", WP: wp.ID, Message: f})
			}
		}
		if v.Report == nil {
			fs = append(fs, judge.Finding{Code: "report-missing", WP: wp.ID, Message: wp.ID + " gave no report; no wiring applied for it"})
			continue
		}
		for _, w := range v.Report.Wiring {
			if isConfigWiring(w) {
				continue // merged by key: planConfig
			}
			file, err := repopath.Clean(w.File)
			if err != nil {
				fs = append(fs, judge.Finding{Code: "wiring-path-refused", WP: wp.ID, File: w.File, Message: err.Error() + "; wiring names a shared file inside the repository"})
				continue
			}
			w.File = file
			owners := plans.Owner(p, w.File)
			if len(owners) != 1 || owners[0] != "shared" {
				fs = append(fs, judge.Finding{Code: "wiring-not-shared", WP: wp.ID, File: w.File, Message: w.File + " is not a shared file; its owner changes it, not the wiring"})
				continue
			}
			key := w.File + "\x00" + strings.TrimSpace(w.Line)
			if other, ok := lineBy[key]; ok && other != wp.ID {
				fs = append(fs, judge.Finding{Code: "wiring-collision", WP: wp.ID, File: w.File, Message: fmt.Sprintf("%s and %s both wire %q", other, wp.ID, w.Line)})
				continue
			}
			lineBy[key] = wp.ID
			out = append(out, AppliedWiring{WP: wp.ID, File: w.File, Line: w.Line})
		}
		for _, cl := range v.Report.Claims {
			if other, ok := claimBy[cl]; ok && other != wp.ID {
				fs = append(fs, judge.Finding{Code: "claim-collision", WP: wp.ID, Message: fmt.Sprintf("%s and %s both claim %s", other, wp.ID, cl)})
			}
			claimBy[cl] = wp.ID
		}
	}
	return out, fs
}
