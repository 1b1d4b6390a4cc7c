package plans

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/scout"
)

// ReconCheck is what a plan check knows of the plan's recon.
type ReconCheck struct {
	// Result is nil when the recon could not be parsed (Err says why).
	Result *scout.Result
	Err    error
}

// CheckRecon reads the plan's RECON.md, when it has one, and checks its
// citations against commit. It returns nil when the plan has no recon or
// commit is empty (the base does not resolve; reported elsewhere).
func CheckRecon(repo *gitrepo.Repo, p *Project, commit string) (*ReconCheck, error) {
	if commit == "" {
		return nil, nil
	}
	b, err := os.ReadFile(filepath.Join(p.Dir, scout.File))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	r, err := scout.Parse(b)
	if err != nil {
		return &ReconCheck{Err: err}, nil
	}
	res, err := scout.Check(r, &scout.GitSource{Repo: repo, Commit: commit})
	if err != nil {
		return nil, err
	}
	return &ReconCheck{Result: res}, nil
}

// checkRecon warns when the SPEC or a brief relies ("recon:C3") on a claim
// the recon's own citations do not bear out, or on one it does not have.
func (c *checker) checkRecon() {
	files := []string{"SPEC.md"}
	wpOf := map[string]string{}
	for i := range c.p.Plan.WPs {
		if path, err := c.p.BriefPath(&c.p.Plan.WPs[i]); err == nil {
			files = append(files, filepath.Base(path))
			wpOf[filepath.Base(path)] = c.p.Plan.WPs[i].ID
		}
	}
	rc := c.in.Recon
	if rc != nil && rc.Err != nil {
		c.add(SevError, "recon-malformed", "", scout.File, "%v", rc.Err)
		return
	}
	for _, name := range files {
		b, err := os.ReadFile(filepath.Join(c.p.Dir, name))
		if err != nil {
			continue // reported by the brief checks
		}
		for _, id := range scout.Refs(string(b)) {
			switch {
			case rc == nil:
				c.add(SevWarning, "recon-missing", wpOf[name], name, "relies on recon:%s but the plan has no checked %s", id, scout.File)
			case rc.Result.Verdict(id) == "":
				c.add(SevWarning, "recon-unknown-claim", wpOf[name], name, "relies on recon:%s, which %s does not have", id, scout.File)
			case rc.Result.Verdict(id) == scout.Unverified:
				c.add(SevWarning, "recon-unverified", wpOf[name], name, "relies on recon:%s, whose citation the base tree does not bear out (%s)", id, reason(rc.Result, id))
			}
		}
	}
}

func reason(r *scout.Result, id string) string {
	for _, c := range r.Claims {
		if c.ID == id {
			return c.Reason
		}
	}
	return ""
}

// CheckAt runs plan check as every front end does (plan check, dispatch,
// the MCP tools): the configured contract block, the definition-of-done
// file, and, when commit names the base, its tree and the recon's
// citations checked against it. An empty commit checks without a base.
func CheckAt(repo *gitrepo.Repo, p *Project, cfg config.Plans, commit string) (*Report, error) {
	contract, err := ContractBlock(repo.WorkTree, cfg)
	if err != nil {
		return nil, err
	}
	in := CheckInput{Contract: contract, WorkTree: repo.WorkTree, AgentInstructions: cfg.AgentInstructions}
	if commit != "" {
		bt, err := ReadBaseTree(repo, commit)
		if err == nil {
			in = in.WithBase(bt)
		}
		if in.Recon, err = CheckRecon(repo, p, commit); err != nil {
			return nil, err
		}
	}
	return Check(p, in), nil
}
