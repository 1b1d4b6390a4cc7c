package app

import (
	"context"
	"strings"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/plans"
	"github.com/agentproto/agentproto/watch"
	"github.com/agentproto/agentproto/web"
)

// WebOptions are the inputs of ServeWeb.
type WebOptions struct {
	// Project is the plan; "" takes the one plan the ledger holds a
	// freeze of.
	Project string
	// Addr is the loopback address to serve on (default 127.0.0.1:0, a
	// free port).
	Addr string
	// Ready is given the page's URL, token and all, once it is served.
	Ready func(project, url string)
}

// reviewer is one plan's page source: the ledger read only, the git
// objects its events name, kept once read.
type reviewer struct {
	project string
	ledger  gitstore.Store
	objs    *web.GitObjects
	cfg     config.Reactions
}

// reviewerOf opens the page source of project (or of the one frozen plan).
func (e *Env) reviewerOf(project string) (*reviewer, error) {
	repo, err := e.Repo()
	if err != nil {
		return nil, err
	}
	l, err := e.ReadLedger()
	if err != nil {
		return nil, err
	}
	if project == "" {
		if project, err = onlyFrozenPlan(l); err != nil {
			return nil, err
		}
	} else if err := plans.ValidateProject(project); err != nil {
		return nil, err
	}
	// A broken agentproto.toml shows the reactions under the default
	// retries rather than hide the page.
	cfg, err := e.Config()
	if err != nil {
		cfg = config.Default()
	}
	return &reviewer{project: project, ledger: l, objs: &web.GitObjects{Repo: repo}, cfg: cfg.Reactions}, nil
}

func (r *reviewer) page() (*web.Page, error) {
	f, err := web.Read(r.ledger, r.project, r.cfg, r.objs.Blob)
	if err != nil {
		return nil, err
	}
	return web.Build(f, r.objs), nil
}

// WebPage builds the reviewer's page of project from the ledger.
func (e *Env) WebPage(ctx context.Context, project string) (*web.Page, error) {
	r, err := e.reviewerOf(project)
	if err != nil {
		return nil, err
	}
	return r.page()
}

// ServeWeb serves the reviewer's page of a plan on loopback, behind a
// random token, until ctx ends; the page follows the ledger live.
func (e *Env) ServeWeb(ctx context.Context, o WebOptions) error {
	r, err := e.reviewerOf(o.Project)
	if err != nil {
		return err
	}
	repo, err := e.Repo()
	if err != nil {
		return err
	}
	if o.Addr == "" {
		o.Addr = "127.0.0.1:0"
	}
	ln, err := web.Listen(o.Addr)
	if err != nil {
		return fault.Invalidf("%v", err)
	}
	tok, err := web.NewToken()
	if err != nil {
		return err
	}
	// The ledger's refs are files: their stamp moves when an event is
	// appended, here or by a sync.
	stamp := watch.Watched{CommonDir: repo.CommonDir}
	s := &web.Server{Project: r.project, Token: tok, Load: r.page, Stamp: func() uint64 { return uint64(stamp.Take()) }}
	if o.Ready != nil {
		o.Ready(r.project, s.URL(ln))
	}
	return s.Serve(ctx, ln)
}

// WebExport says what ExportWeb wrote.
type WebExport struct {
	Project string `json:"project"`
	File    string `json:"file"`
	Events  int    `json:"events"`
	Queue   int    `json:"queue"`
}

// ExportWeb writes the reviewer's page of project to file as one
// self-contained static page.
func (e *Env) ExportWeb(ctx context.Context, project, file string) (*WebExport, error) {
	pg, err := e.WebPage(ctx, project)
	if err != nil {
		return nil, err
	}
	if err := web.Export(file, pg); err != nil {
		return nil, err
	}
	return &WebExport{Project: pg.Project, File: file, Events: pg.Events, Queue: len(pg.Queue)}, nil
}

// onlyFrozenPlan names the one plan the ledger holds a freeze of.
func onlyFrozenPlan(l gitstore.Store) (string, error) {
	list, err := plans.FrozenProjects(l)
	if err != nil {
		return "", err
	}
	switch len(list) {
	case 0:
		return "", fault.Invalidf("no plan is frozen in this repository's ledger: git agentproto plan freeze PROJECT")
	case 1:
		return list[0], nil
	}
	return "", fault.Invalidf("name the plan: %s", strings.Join(list, ", "))
}
