package mcp

import (
	"context"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/pipeline"
	"github.com/agentproto/agentproto/sessions"
)

type verifyIn struct {
	Project string `json:"project" jsonschema:"the plan name"`
	WP      string `json:"wp" jsonschema:"the work package id"`
	Wait    string `json:"wait,omitempty" jsonschema:"the longest this call waits before it answers with a job to give job_wait (default and cap 40s; 0s answers with the job at once)"`
}

type e2eIn struct {
	Project string `json:"project" jsonschema:"the plan name (consolidated)"`
	Wait    string `json:"wait,omitempty" jsonschema:"the longest this call waits before it answers with a job to give job_wait (default and cap 40s; 0s answers with the job at once)"`
}

type checkpointIn struct {
	Project string `json:"project" jsonschema:"the plan name"`
	WP      string `json:"wp" jsonschema:"the work package id"`
	Message string `json:"message,omitempty" jsonschema:"commit message (default: the WP id and title)"`
}

type consolidateIn struct {
	Project string `json:"project" jsonschema:"the plan name"`
	DryRun  bool   `json:"dry_run,omitempty" jsonschema:"say what would be merged and wired; write nothing"`
	// Checkpointing first is the default here: an LLM that forgets the
	// last wave's checkpoints would only be told to go back for them.
	NoCheckpoint bool     `json:"no_checkpoint,omitempty" jsonschema:"do not first checkpoint the verified work packages that have no checkpoint (by default they are, the last wave included)"`
	Rename       []string `json:"rename,omitempty" jsonschema:"move the config key OLD a work package adds to NEW, each WPn:OLD=NEW (what a config-collision finding proposes); recorded, and standing for later consolidations"`
	Wait         string   `json:"wait,omitempty" jsonschema:"the longest this call waits before it answers with a job to give job_wait (default and cap 40s; 0s answers with the job at once)"`
}

type prIn struct {
	Project string `json:"project" jsonschema:"the plan name (consolidated with a green gate)"`
	DryRun  bool   `json:"dry_run,omitempty" jsonschema:"return the push and the request; send nothing (default false, as in the CLI)"`
	Draft   bool   `json:"draft,omitempty" jsonschema:"open as a draft"`
	Base    string `json:"base,omitempty" jsonschema:"base branch (default: the plan's base)"`
	Title   string `json:"title,omitempty" jsonschema:"title (default: agentproto: PROJECT)"`
}

type prWatchIn struct {
	Project  string `json:"project" jsonschema:"the plan whose pull request pr_open opened"`
	Interval string `json:"interval,omitempty" jsonschema:"time between polls, a second or more (default: [reactions] interval)"`
}

type prAnswerIn struct {
	Project string `json:"project" jsonschema:"the plan name"`
	Item    string `json:"item" jsonschema:"the escalated item, as plan_status lists it: check:NAME, comment:ID or review:ID"`
	Choice  string `json:"choice" jsonschema:"retry (its owners get new turns), dismiss (nothing more is done), or the work package that takes it (WPn)"`
	Note    string `json:"note,omitempty" jsonschema:"why: kept in the ledger, shown if it escalates again"`
}

type policyIn struct {
	Sessions []string `json:"sessions" jsonschema:"session ids"`
	On       string   `json:"on,omitempty" jsonschema:"turn-end (default) or idle:DURATION"`
	Do       string   `json:"do" jsonschema:"actions, comma-separated: verify, checkpoint, kill, notify, prompt-file:PATH"`
	Plan     string   `json:"plan,omitempty" jsonschema:"plan of verify/checkpoint (default: from the session label PROJECT/WPn)"`
	Repeat   bool     `json:"repeat,omitempty" jsonschema:"a policy that prompts (prompt-file) fires on every turn end; by default once a session, as its own prompt ends in another turn end"`
}

func addPipelineTools(s *sdk.Server, e *env) {
	addTool(s, "verify", "Verify a work package on disk: changed paths against its perimeter, the gate re-run; recorded. Anything but pass is a tool error carrying the verification. "+
		"A dispatched work package is verified by the sessions daemon at its turn's end: use dispatch_wait for those, verify for a session you started by hand."+longNote,
		func(ctx context.Context, req *sdk.CallToolRequest, in verifyIn) (*Result[*pipeline.Verification], error) {
			return runLong(ctx, e, req, "verify", in.Wait, []string{"verify", "--json", "--", in.Project, in.WP},
				func(v *pipeline.Verification) *Result[*pipeline.Verification] {
					res := &Result[*pipeline.Verification]{Command: "verify", Doc: v, Summary: fmt.Sprintf("%s %s: %s (%d changed, %d outside the perimeter, gate exit %d)",
						in.Project, v.WP, v.Verdict, len(v.Changed), len(v.OutOfScope), v.Gate.ExitCode)}
					if v.Verdict != pipeline.Pass {
						res.Fail = fmt.Errorf("%s failed verification", v.WP)
					}
					return res
				})
		})
	addTool(s, "checkpoint", "Commit exactly the in-perimeter changed paths of a verified work package (never pushes). consolidate does it for every verified WP that has none, so call this only to commit one WP by itself.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in checkpointIn) (*Result[*pipeline.Checkpoint], error) {
			_, cp, err := e.app.Checkpoint(ctx, in.Project, in.WP, in.Message)
			if err != nil {
				return nil, err
			}
			return &Result[*pipeline.Checkpoint]{Command: "checkpoint", Doc: cp, Summary: fmt.Sprintf("%s %s: %.12s (%d paths)", in.Project, cp.WP, cp.Commit, len(cp.Paths))}, nil
		})
	addTool(s, "consolidate", "Single writer: checkpoint the verified WPs that have no checkpoint (the last wave included), merge the WP branches into the integration worktree, apply shared-file wiring, run the gate; "+
		"dry_run writes nothing. Findings are a tool error carrying the consolidation."+longNote,
		func(ctx context.Context, req *sdk.CallToolRequest, in consolidateIn) (*Result[*pipeline.Consolidation], error) {
			argv := []string{"consolidate", "--json"}
			if !in.NoCheckpoint {
				argv = append(argv, "--checkpoint")
			}
			if in.DryRun {
				argv = append(argv, "--dry-run")
			}
			for _, r := range in.Rename {
				argv = append(argv, "--rename", r)
			}
			return runLong(ctx, e, req, "consolidate", in.Wait, append(argv, "--", in.Project),
				func(c *pipeline.Consolidation) *Result[*pipeline.Consolidation] {
					res := &Result[*pipeline.Consolidation]{Command: "consolidate", Doc: c,
						Summary: fmt.Sprintf("merged %s; %d wiring lines, %d findings", strings.Join(c.Merged, ", "), len(c.Wiring), len(c.Findings))}
					if len(c.Checkpointed) > 0 {
						res.Summary = fmt.Sprintf("checkpointed %s; %s", strings.Join(c.Checkpointed, ", "), res.Summary)
					}
					if c.DryRun {
						res.Summary = fmt.Sprintf("would merge %s; dry run: nothing written", strings.Join(c.WouldMerge, ", "))
					}
					return res
				})
		})
	addTool(s, "e2e", "Run the [e2e] commands against the integration worktree (after consolidate) and record their exit codes; a failure is a tool error carrying them."+longNote,
		func(ctx context.Context, req *sdk.CallToolRequest, in e2eIn) (*Result[*pipeline.E2EResult], error) {
			return runLong(ctx, e, req, "e2e", in.Wait, []string{"e2e", "--json", "--", in.Project},
				func(r *pipeline.E2EResult) *Result[*pipeline.E2EResult] {
					res := &Result[*pipeline.E2EResult]{Command: "e2e", Doc: r, Summary: fmt.Sprintf("%d e2e commands, ok=%v", len(r.Commands), r.OK)}
					if !r.OK {
						res.Fail = fmt.Errorf("e2e failed")
					}
					return res
				})
		})
	addTool(s, "pr_open", "Push the integration branch and open (or update) the plan's pull request on GitHub (never merged); "+
		"dry_run returns the push and the request and sends nothing. The token comes from GH_TOKEN, GITHUB_TOKEN or gh's configuration and is never shown.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in prIn) (*Result[prDoc], error) {
			out, err := e.app.OpenPR(ctx, app.PROptions{Project: in.Project, Base: in.Base, Title: in.Title, Draft: in.Draft, DryRun: in.DryRun})
			if err != nil {
				return nil, err
			}
			if in.DryRun {
				return &Result[prDoc]{Command: "pr open", Doc: prDoc{Project: in.Project, Repo: out.Repo.String(), DryRun: true, Request: out.Request},
					Summary: "dry run: nothing pushed or sent; the request is in the result"}, nil
			}
			verb := "opened"
			if out.Result.Updated {
				verb = "updated"
			}
			return &Result[prDoc]{Command: "pr open", Doc: prResultDoc(out.Result), Summary: fmt.Sprintf("%s pull request #%d: %s", verb, out.Result.Number, out.Result.URL)}, nil
		})
	addTool(s, "pr_watch", "Let the sessions daemon watch the plan's pull request (the CLI's pr watch --daemon): it polls with conditional requests "+
		"every interval and reacts as [reactions] says — a failed check or a review comment goes to the owning work package's agent, the fix through verify, "+
		"checkpoint, consolidate and review to a new commit on the PR branch (never forced, never merged) — until the pull request is closed or merged. "+
		"Returns at once with the policy (policy_cancel stops it). What escalates shows in plan_status and supervisor_observe; answer it with pr_answer.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in prWatchIn) (*Result[*app.PRDaemonWatch], error) {
			var every time.Duration
			if in.Interval != "" {
				d, err := time.ParseDuration(in.Interval)
				if err != nil || d < time.Second {
					return nil, fault.Invalidf("interval %q is not a duration of a second or more, such as 1m", in.Interval)
				}
				every = d
			}
			w, err := e.app.WatchPRInDaemon(ctx, in.Project, every)
			if err != nil {
				return nil, err
			}
			return &Result[*app.PRDaemonWatch]{Command: "pr watch", Doc: w,
				Summary: fmt.Sprintf("the daemon watches pull request #%d every %s (policy %s)", w.Number, w.Every, w.Policy.ID)}, nil
		})
	addTool(s, "pr_answer", "Answer an item of the plan's pull request that waits for the supervisor (plan_status lists each with what was tried): "+
		"retry gives its owners new turns, a work package id gives it to that WP (for a shared file or a check naming none), dismiss closes it. "+
		"The next poll acts on it. Refused (exit 5) for an item that is not waiting.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in prAnswerIn) (*Result[*app.PRAnswer], error) {
			a, err := e.app.AnswerPR(ctx, app.PRAnswerOptions{Project: in.Project, Item: in.Item, Choice: in.Choice, Note: in.Note})
			if err != nil {
				return nil, err
			}
			sum := fmt.Sprintf("%s goes to %s at the next poll", a.Item, strings.Join(a.WPs, ", "))
			switch {
			case !a.Recorded:
				sum = "this answer is already recorded; nothing written"
			case len(a.WPs) == 0:
				sum = "dismissed " + a.Item
			}
			return &Result[*app.PRAnswer]{Command: "pr answer", Doc: a, Summary: sum}, nil
		})
	addTool(s, "policy_attach", "Attach a policy to sessions: actions the sessions daemon runs on turn-end or idleness, without polling.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in policyIn) (*Result[*sessions.Policy], error) {
			p, err := e.app.AttachPolicy(ctx, app.PolicyOptions{Sessions: in.Sessions, On: in.On, Do: in.Do, Plan: in.Plan, Repeat: in.Repeat})
			if err != nil {
				return nil, err
			}
			return &Result[*sessions.Policy]{Command: "policy attach", Doc: p, Summary: fmt.Sprintf("attached policy %s to %s", p.ID, strings.Join(in.Sessions, " "))}, nil
		})
	addTool(s, "policy_cancel", "Cancel a policy (by the id policy_attach returned): it fires no more; what it started goes on.",
		func(ctx context.Context, _ *sdk.CallToolRequest, in idIn) (*Result[canceledDoc], error) {
			if err := e.app.CancelPolicy(ctx, in.ID); err != nil {
				return nil, err
			}
			return &Result[canceledDoc]{Command: "policy cancel", Doc: canceledDoc{ID: in.ID, Canceled: true}, Summary: "canceled policy " + in.ID}, nil
		})
}
