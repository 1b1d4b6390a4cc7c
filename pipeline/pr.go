package pipeline

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/agentproto/agentproto/forge"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/worktree"
)

// PRResult is the data of a pr_opened event.
type PRResult struct {
	Project string `json:"project"`
	Repo    string `json:"repo"`
	Head    string `json:"head"`
	Base    string `json:"base"`
	Number  int    `json:"number"`
	URL     string `json:"url"`
	Updated bool   `json:"updated"`
}

// PROptions say where and how to open the pull request.
type PROptions struct {
	Remote    string
	Repo      forge.Repo
	Base      string
	Title     string
	Draft     bool
	DryRun    bool
	Force     bool
	Token     string
	Transport http.RoundTripper
	// AgentsFile is the definition of done, linked from the body.
	AgentsFile string
}

// Body writes the pull request description from the ledger: the work
// packages and their verified gates, consolidation, review findings, e2e
// results, and a link to the definition of done (not a copy).
func (e *Env) Body(st *State, repo forge.Repo, base, agentsFile string) string {
	var b strings.Builder
	p := e.Project
	fmt.Fprintf(&b, "## Plan `%s`\n\n", p.Name)
	fmt.Fprintf(&b, "Definition of done: [%s](https://%s/%s/%s/blob/%s/%s)\n\n", agentsFile, repo.Host, repo.Owner, repo.Name, base, agentsFile)
	b.WriteString("### Work packages\n\n| WP | title | verify | gate exit | changed | checkpoint |\n|---|---|---|---|---|---|\n")
	for _, wp := range order(p) {
		v, ok := st.Verifications[wp.ID]
		verdict, exit, changed := "not verified", "-", "-"
		if ok {
			verdict, exit, changed = v.Verdict, fmt.Sprint(v.Gate.ExitCode), fmt.Sprint(len(v.Changed))
		}
		cp := "-"
		if c, ok := st.Checkpoints[wp.ID]; ok {
			cp = short(c.Commit)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", wp.ID, wp.Title, verdict, exit, changed, cp)
	}
	if c := st.Consolidated; c != nil {
		b.WriteString("\n### Consolidation\n\n")
		if c.Gate != nil {
			fmt.Fprintf(&b, "Gate `%s` in the integration worktree: exit %d.\n", c.Gate.Command, c.Gate.ExitCode)
		}
		fmt.Fprintf(&b, "Merged %s; %d wiring lines for shared files.\n", strings.Join(c.Merged, ", "), len(c.Wiring))
	}
	if r := st.Review; r != nil {
		fmt.Fprintf(&b, "\n### Review\n\n%d findings.\n", len(r.Findings))
		for i, f := range r.Findings {
			if i == 30 {
				fmt.Fprintf(&b, "- ... and %d more\n", len(r.Findings)-30)
				break
			}
			fmt.Fprintf(&b, "- `%s` %s:%d %s\n", f.Code, f.File, f.Line, f.Message)
		}
	}
	if r := st.E2E; r != nil {
		b.WriteString("\n### End to end\n\n")
		for _, c := range r.Commands {
			fmt.Fprintf(&b, "- `%s`: exit %d\n", c.Gate.Command, c.Gate.ExitCode)
		}
	}
	writeSpend(&b, e.Ledger, p.Name)
	// GitHub's API takes no file with a pull request: the body names the
	// page that holds the evidence, which any clone with the ledger shows.
	fmt.Fprintf(&b, "\nThe evidence of every work package, and what needs a reviewer first: `git agentproto web %s` in a clone with the ledger (`git agentproto sync`), or `git agentproto web %s --export %s.html` for one static file.\n", p.Name, p.Name, p.Name)
	b.WriteString("\n_Opened by git agentproto, which never merges._\n")
	return b.String()
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// PRPlan is what opening a pull request would do, for a dry run: the
// push, as the argv it runs, and the call to the forge.
type PRPlan struct {
	Push []string `json:"push"`
	forge.Call
}

// String is the plan as a person reads it: the push, then the call.
func (p *PRPlan) String() string {
	return strings.Join(p.Push, " ") + "\n" + p.Call.String()
}

// OpenPR pushes the integration branch with the git CLI and opens (or
// updates) the pull request. With DryRun it pushes nothing and returns
// what it would do.
func (e *Env) OpenPR(o PROptions) (*PRResult, *PRPlan, error) {
	frozen, err := e.Frozen()
	if err != nil {
		return nil, nil, err
	}
	st, err := ReadState(e.Ledger, e.Project.Name)
	if err != nil {
		return nil, nil, err
	}
	if err := st.refuseAnyUntrusted(e.Project.Name); err != nil {
		return nil, nil, err
	}
	if st.Consolidated == nil || !st.Consolidated.OK {
		return nil, nil, fault.Refusedf("plan %s is not consolidated with a green gate: run git agentproto consolidate %s", e.Project.Name, e.Project.Name)
	}
	if r := st.Review; r != nil && !r.OK && !o.Force {
		return nil, nil, fault.Refusedf("the last review of %s found %d problems: the pull request waits for a passing review (--force opens it anyway, the findings in its body); next: %s",
			e.Project.Name, len(r.Findings), e.ReviewNext(r))
	}
	m, err := worktree.Load(e.Repo, IntegrationSlug(e.Project.Name))
	if err != nil {
		return nil, nil, err
	}
	base := o.Base
	if base == "" {
		base = strings.TrimPrefix(frozen.Base, "origin/")
	}
	title := o.Title
	if title == "" {
		title = "agentproto: " + e.Project.Name
	}
	pr := forge.PullRequest{Title: title, Head: m.Branch, Base: base, Body: e.Body(st, o.Repo, base, o.AgentsFile), Draft: o.Draft}
	// What is pushed is what was consolidated and reviewed, never a tip
	// something moved since.
	if tip, err := e.Repo.Commit("refs/heads/" + m.Branch); err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", m.Branch, err)
	} else if tip != st.Consolidated.Head {
		return nil, nil, fault.Conflictf("%s is at %.12s, not at the consolidated %.12s: it moved after consolidate; run git agentproto consolidate %s again (and review) before the pull request",
			m.Branch, tip, st.Consolidated.Head, e.Project.Name)
	}
	// A dry run that passes must mean the push has somewhere to go.
	if _, err := e.Repo.RemoteURL(o.Remote); err != nil { // the push URL falls back to it: one exists when it does
		return nil, nil, fault.Invalidf("the push remote %q is not configured (git remote -v lists them; [pr] remote names another)", o.Remote)
	}
	push := []string{"push", o.Remote, "refs/heads/" + m.Branch + ":refs/heads/" + m.Branch}
	if o.DryRun {
		return nil, &PRPlan{Push: append([]string{"git"}, push...), Call: forge.Request(o.Repo, pr)}, nil
	}
	if _, err := e.Repo.Git(push...); err != nil {
		return nil, nil, fmt.Errorf("pushing %s to %s: %w", m.Branch, o.Remote, err)
	}
	client, err := forge.NewClient(o.Repo, forge.Options{Token: o.Token, Transport: o.Transport})
	if err != nil {
		return nil, nil, err
	}
	res, err := client.Open(pr)
	if err != nil {
		return nil, nil, err
	}
	r := &PRResult{Project: e.Project.Name, Repo: o.Repo.String(), Head: m.Branch, Base: base, Number: res.Number, URL: res.URL, Updated: res.Updated}
	id := fmt.Sprintf("pipeline/%s/pr/%s/%d/%s/updated=%v", e.Project.Name, strings.ReplaceAll(o.Repo.String(), "/", "_"), res.Number, short(st.Consolidated.Head), res.Updated)
	if err := e.record(KindPR, id, r, nil); err != nil {
		return r, nil, err
	}
	return r, nil, nil
}
