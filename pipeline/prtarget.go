package pipeline

import (
	"net/http"
	"strings"

	"github.com/agentproto/agentproto/forge"
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/fault"
)

// PRTarget is the repository the plan's pull request opens on: [pr] repo
// and host when set, else what the remote's URL says.
func (e *Env) PRTarget(cfg config.PR) (forge.Repo, error) {
	var repo forge.Repo
	if cfg.Repo != "" {
		owner, name, _ := strings.Cut(cfg.Repo, "/")
		repo = forge.Repo{Host: "github.com", Owner: owner, Name: name}
	} else {
		u, err := e.Repo.RemoteURL(cfg.Remote)
		if err != nil {
			return repo, fault.Invalidf("no remote %q names the GitHub repository: add one (git remote add %s https://github.com/OWNER/NAME), or set [pr] repo = \"OWNER/NAME\" in %s", cfg.Remote, cfg.Remote, config.FileName)
		}
		if repo, err = forge.ParseRemote(u); err != nil {
			return repo, err
		}
	}
	if cfg.Host != "" {
		repo.Host = cfg.Host
	}
	return repo, nil
}

// PRRequest is what opening a plan's pull request needs beyond config.
type PRRequest struct {
	// Base and Title override the plan's base and the default title.
	Base, Title string
	// Draft opens it as a draft, as [pr] draft does.
	Draft bool
	// DryRun builds the request and sends nothing.
	DryRun bool
	// Force opens it though the last review found problems (they are in
	// its body).
	Force bool
	// Token gives the token of a forge host (forge.Token); not asked for a
	// dry run.
	Token func(host string) (string, error)
	// Transport carries the request (nil: the system's).
	Transport http.RoundTripper
}

// PROutcome is a pull request opened, or the text of one not sent.
type PROutcome struct {
	Repo   forge.Repo
	Result *PRResult
	// Request is the push and the request a dry run would send.
	Request *PRPlan
}

// PullRequest opens (or, with DryRun, prints) the plan's pull request on
// the target [pr] names.
func (e *Env) PullRequest(cfg config.Config, req PRRequest) (*PROutcome, error) {
	out, _, err := e.pullRequest(cfg, req)
	return out, err
}

// pullRequest is PullRequest, also saying what to do when it fails.
func (e *Env) pullRequest(cfg config.Config, req PRRequest) (*PROutcome, string, error) {
	repo, err := e.PRTarget(cfg.PR)
	if err != nil {
		return nil, "add a GitHub remote, or set [pr] repo = \"OWNER/NAME\", then git agentproto run " + e.Project.Name + " again", err
	}
	o := PROptions{Remote: cfg.PR.Remote, Repo: repo, Base: req.Base, Title: req.Title, Draft: req.Draft || cfg.PR.Draft,
		DryRun: req.DryRun, Force: req.Force, AgentsFile: cfg.Plans.AgentInstructions}
	if !req.DryRun {
		token := req.Token
		if token == nil {
			token = forge.Token
		}
		if o.Token, err = token(repo.Host); err != nil {
			return &PROutcome{Repo: repo}, "set GH_TOKEN", err
		}
		o.Transport = req.Transport
	}
	r, plan, err := e.OpenPR(o)
	if err != nil {
		return &PROutcome{Repo: repo}, "git agentproto pr open " + e.Project.Name, err
	}
	return &PROutcome{Repo: repo, Result: r, Request: plan}, "", nil
}
