package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentproto/agentproto/forge"
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/pipeline"
	"github.com/agentproto/agentproto/plans"
	"github.com/agentproto/agentproto/plugins/host"
	"github.com/agentproto/agentproto/sessions"
)

type wpIn struct {
	Project string `json:"project" jsonschema:"the plan name"`
	WP      string `json:"wp" jsonschema:"the work package id"`
}

type checkpointIn struct {
	Project string `json:"project" jsonschema:"the plan name"`
	WP      string `json:"wp" jsonschema:"the work package id"`
	Message string `json:"message,omitempty" jsonschema:"commit message (default: the WP id and title)"`
}

type consolidateIn struct {
	Project string   `json:"project" jsonschema:"the plan name"`
	DryRun  bool     `json:"dry_run,omitempty" jsonschema:"say what would be merged and wired; write nothing"`
	Rename  []string `json:"rename,omitempty" jsonschema:"move the config key OLD a work package adds to NEW, each WPn:OLD=NEW (what a config-collision finding proposes); recorded, and standing for later consolidations"`
}

type prIn struct {
	Project string `json:"project" jsonschema:"the plan name (consolidated with a green gate)"`
	DryRun  bool   `json:"dry_run,omitempty" jsonschema:"return the push and the request; send nothing (default false, as in the CLI)"`
	Draft   bool   `json:"draft,omitempty" jsonschema:"open as a draft"`
	Base    string `json:"base,omitempty" jsonschema:"base branch (default: the plan's base)"`
	Title   string `json:"title,omitempty" jsonschema:"title (default: agentproto: PROJECT)"`
}

type policyIn struct {
	Sessions []string `json:"sessions" jsonschema:"session ids"`
	On       string   `json:"on,omitempty" jsonschema:"turn-end (default) or idle:DURATION"`
	Do       string   `json:"do" jsonschema:"actions, comma-separated: verify, checkpoint, kill, notify, prompt-file:PATH"`
	Plan     string   `json:"plan,omitempty" jsonschema:"plan of verify/checkpoint (default: from the session label PROJECT/WPn)"`
	Repeat   bool     `json:"repeat,omitempty" jsonschema:"a policy that prompts (prompt-file) fires on every turn end; by default once a session, as its own prompt ends in another turn end"`
}

func addPipelineTools(s *sdk.Server, e *env) {
	addTool(s, "verify", "Verify a work package on disk: changed paths against its perimeter, the gate re-run. Anything but pass is a tool error carrying the verification.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in wpIn) (*Result, error) {
			pe, cfg, err := e.pipeline(in.Project)
			if err != nil {
				return nil, err
			}
			v, err := pe.Verify(in.WP, cfg.Dispatch.GateTimeout.Duration)
			if err != nil {
				return nil, err
			}
			res := &Result{Command: "verify", Doc: v, Summary: fmt.Sprintf("%s %s: %s (%d changed, %d outside the perimeter, gate exit %d)",
				in.Project, v.WP, v.Verdict, len(v.Changed), len(v.OutOfScope), v.Gate.ExitCode)}
			if v.Verdict != pipeline.Pass {
				res.Fail = fmt.Errorf("%s failed verification", v.WP)
			}
			return res, nil
		})
	addTool(s, "checkpoint", "Commit exactly the in-perimeter changed paths of a verified work package (never pushes).",
		func(ctx context.Context, _ *sdk.CallToolRequest, in checkpointIn) (*Result, error) {
			pe, _, err := e.pipeline(in.Project)
			if err != nil {
				return nil, err
			}
			cp, err := pe.Checkpoint(in.WP, in.Message)
			if err != nil {
				return nil, err
			}
			return &Result{Command: "checkpoint", Doc: cp, Summary: fmt.Sprintf("%s %s: %.12s (%d paths)", in.Project, cp.WP, cp.Commit, len(cp.Paths))}, nil
		})
	addTool(s, "consolidate", "Single writer: merge the verified WP branches, apply shared-file wiring, run the gate (dry_run writes nothing).",
		func(ctx context.Context, _ *sdk.CallToolRequest, in consolidateIn) (*Result, error) {
			pe, cfg, err := e.pipeline(in.Project)
			if err != nil {
				return nil, err
			}
			renames, err := pipeline.ParseRenames(in.Rename)
			if err != nil {
				return nil, err
			}
			var c *pipeline.Consolidation
			if in.DryRun {
				c, err = pe.ConsolidateDryRun(renames...)
			} else {
				c, err = pe.Consolidate(cfg.Worktree.Root, cfg.Dispatch.GateTimeout.Duration, renames...)
			}
			if c == nil {
				return nil, err
			}
			res := &Result{Command: "consolidate", Doc: c, Fail: err,
				Summary: fmt.Sprintf("merged %s; %d wiring lines, %d findings", strings.Join(c.Merged, ", "), len(c.Wiring), len(c.Findings))}
			if c.DryRun {
				res.Summary = fmt.Sprintf("would merge %s; dry run: nothing written", strings.Join(c.WouldMerge, ", "))
			}
			return res, nil
		})
	addTool(s, "e2e", "Run the [e2e] commands against the integration worktree and record their exit codes; a failure is a tool error carrying them.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in projectIn) (*Result, error) {
			pe, cfg, err := e.pipeline(in.Project)
			if err != nil {
				return nil, err
			}
			if len(cfg.E2E.Commands) == 0 {
				return nil, fault.Invalidf("no [e2e] commands in %s", config.FileName)
			}
			r, err := pe.E2E(cfg.E2E.Commands, cfg.Dispatch.GateTimeout.Duration)
			if err != nil {
				return nil, err
			}
			res := &Result{Command: "e2e", Doc: r, Summary: fmt.Sprintf("%d e2e commands, ok=%v", len(r.Commands), r.OK)}
			if !r.OK {
				res.Fail = fmt.Errorf("e2e failed")
			}
			return res, nil
		})
	addTool(s, "pr_open", "Push the integration branch and open (or update) the plan's pull request on GitHub (never merged); "+
		"dry_run returns the push and the request and sends nothing. The token comes from GH_TOKEN, GITHUB_TOKEN or gh's configuration and is never shown.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in prIn) (*Result, error) {
			pe, cfg, err := e.pipeline(in.Project)
			if err != nil {
				return nil, err
			}
			out, err := pe.PullRequest(cfg, pipeline.PRRequest{Base: in.Base, Title: in.Title, Draft: in.Draft, DryRun: in.DryRun, Transport: forge.EnvTransport()})
			if err != nil {
				return nil, err
			}
			if in.DryRun {
				return &Result{Command: "pr open", Doc: map[string]any{"project": pe.Project.Name, "repo": out.Repo.String(), "dry_run": true, "request": out.Request},
					Summary: "dry run: nothing pushed or sent; the request is in the result"}, nil
			}
			verb := "opened"
			if out.Result.Updated {
				verb = "updated"
			}
			return &Result{Command: "pr open", Doc: out.Result, Summary: fmt.Sprintf("%s pull request #%d: %s", verb, out.Result.Number, out.Result.URL)}, nil
		})
	addTool(s, "policy_attach", "Attach a policy to sessions: actions the sessions daemon runs on turn-end or idleness, without polling.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in policyIn) (*Result, error) {
			p, err := e.attachPolicy(in)
			if err != nil {
				return nil, err
			}
			return &Result{Command: "policy attach", Doc: p, Summary: fmt.Sprintf("attached policy %s to %s", p.ID, strings.Join(in.Sessions, " "))}, nil
		})
	addTool(s, "policy_cancel", "Cancel a policy: it fires no more (what it started goes on).",
		func(ctx context.Context, _ *sdk.CallToolRequest, in idIn) (*Result, error) {
			if err := e.sessions().CancelPolicy(ctx, in.ID); err != nil {
				return nil, err
			}
			return &Result{Command: "policy cancel", Doc: map[string]any{"id": in.ID, "canceled": true}, Summary: "canceled policy " + in.ID}, nil
		})
}

// pipeline loads what the pipeline verbs share: the plan, its history and
// the ledger.
func (e *env) pipeline(project string) (*pipeline.Env, config.Config, error) {
	cfg, err := e.config()
	if err != nil {
		return nil, cfg, err
	}
	p, err := e.loadPlan(project)
	if err != nil {
		return nil, cfg, err
	}
	l, err := e.ledger()
	if err != nil {
		return nil, cfg, err
	}
	h, err := plans.ReadHistory(l, p.Name)
	if err != nil {
		return nil, cfg, err
	}
	return &pipeline.Env{Repo: e.repo, Ledger: l, Project: p, History: h}, cfg, nil
}

// attachPolicy is `policy attach`: a notify action runs [policies] notify,
// which from a committed agentproto.toml runs only once trusted.
func (e *env) attachPolicy(in policyIn) (*sessions.Policy, error) {
	on := in.On
	if on == "" {
		on = "turn-end"
	}
	if _, err := sessions.ParseTrigger(on); err != nil {
		return nil, err
	}
	acts, err := sessions.ParseActions(in.Do)
	if err != nil {
		return nil, err
	}
	cfg, err := e.config()
	if err != nil {
		return nil, err
	}
	for _, a := range acts {
		if a == sessions.ActNotify {
			if err := host.RequireNotifyTrust(e.repo.WorkTree, cfg.Policies.Notify); err != nil {
				return nil, err
			}
		}
	}
	recs, err := e.records(in.Sessions)
	if err != nil {
		return nil, err
	}
	plan, wp := in.Plan, map[string]string{}
	for _, rec := range recs {
		if p, w, ok := strings.Cut(rec.Label, "/"); ok && (plan == "" || p == plan) {
			if plan == "" {
				plan = p
			}
			wp[rec.ID] = w
		}
	}
	return e.sessions().AttachPolicy(context.Background(), sessions.PolicyArgs{Sessions: in.Sessions, On: on, Do: acts,
		Project: plan, WP: wp, Dir: e.repo.WorkTree, Notify: cfg.Policies.Notify, Repeat: in.Repeat})
}
