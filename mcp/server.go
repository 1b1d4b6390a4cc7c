// Package mcp is the Model Context Protocol server of agentproto: typed
// tools over the same library functions the CLI calls, so a supervisor LLM
// drives plans, worktrees and sessions without parsing text. One process
// serves one client over stdio, in one repository.
package mcp

import (
	"context"
	"fmt"
	"os"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/internal/secrets"
)

// Roles a server can play. A supervisor steers sessions; an executor only
// reads its own brief and changes and records evidence, so an executor
// given this server cannot spawn or steer other agents.
const (
	RoleSupervisor = "supervisor"
	RoleExecutor   = "executor"
)

// Options configure a server.
type Options struct {
	// Dir is a directory inside the repository to serve.
	Dir string
	// Role is RoleSupervisor (the default) or RoleExecutor.
	Role string
	// Agent is the executor's peer id: its quota guard and evidence are
	// its own and nobody else's.
	Agent string
	// Version is reported to clients.
	Version string
	// Serve starts the sessions daemon (git-agentproto serve).
	Serve []string
}

// env is what every tool works on: the repository, found once, and the
// use-case layer over it.
type env struct {
	repo *gitrepo.Repo
	opts Options
	app  *app.Env
}

// New returns the server for opts, with the tools and resources of its role.
func New(opts Options) (*sdk.Server, error) {
	if opts.Role == "" {
		opts.Role = RoleSupervisor
	}
	if opts.Role != RoleSupervisor && opts.Role != RoleExecutor {
		return nil, fault.Invalidf("--role %q: give supervisor or executor", opts.Role)
	}
	if opts.Role == RoleExecutor && opts.Agent != "" {
		if err := secrets.Refuse("--agent", opts.Agent); err != nil {
			return nil, err
		}
	}
	dir := opts.Dir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		dir = wd
	}
	repo, err := gitrepo.Discover(dir)
	if err != nil {
		return nil, err
	}
	if repo.WorkTree == "" {
		return nil, fault.Invalidf("the MCP server needs a working tree; %s is a bare repository", repo.CommonDir)
	}
	e := &env{repo: repo, opts: opts, app: app.Open(repo, opts.Serve)}
	e.app.ConfigureProcess()
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "agentproto", Title: "git agentproto", Version: version},
		&sdk.ServerOptions{Instructions: instructions(opts.Role)})
	if opts.Role == RoleExecutor {
		addExecutorTools(s, e)
		addBriefResources(s, e)
		return s, nil
	}
	addLedgerTools(s, e)
	addSetupTools(s, e)
	addPlanTools(s, e)
	addPreflightTools(s, e)
	addWorktreeTools(s, e)
	addCleanupTools(s, e)
	addSessionTools(s, e)
	addPipelineTools(s, e)
	addDispatchTools(s, e)
	addJobTools(s, e)
	addDispatchWait(s, e)
	addPeerTools(s, e)
	addSpendTools(s, e)
	addBriefResources(s, e)
	addSessionResources(s, e)
	return s, nil
}

// Run serves one client over stdin and stdout until it disconnects.
//
// The protocol owns both streams, so the process lets nothing else near
// them: os.Stdin becomes /dev/null and os.Stdout is stderr. A child handed
// os.Stdin would eat the client's requests, and a line printed to
// os.Stdout would break the framing; the adapter probes of profile_check
// run in the sessions companion, but nothing here relies on that.
func Run(ctx context.Context, opts Options) error {
	s, err := New(opts)
	if err != nil {
		return err
	}
	in, out := os.Stdin, os.Stdout
	null, err := os.Open(os.DevNull)
	if err != nil {
		return err
	}
	defer null.Close()
	os.Stdin, os.Stdout = null, os.Stderr
	defer func() { os.Stdin, os.Stdout = in, out }()
	return s.Run(ctx, &lineTransport{in: in, out: out})
}

func instructions(role string) string {
	if role == RoleExecutor {
		return "agentproto executor tools: read your frozen brief (brief_read), list your worktree's changes " +
			"(my_changes), record evidence (evidence_add) and check your own quota (quota_guard). " +
			"You cannot start, steer or dispatch other agents."
	}
	return fmt.Sprint("agentproto supervisor tools. Set up: init, plan_new, plan_write (it checks the plan), plan_freeze; goal_new for peers. ",
		"Run a plan: dispatch (returns once the first wave is launched; the sessions daemon verifies each session at its turn's end and launches the rest, ",
		"also after you disconnect), then dispatch_wait (returns within 45s: when all are verified, when one waits for you, or with what is pending: call again). ",
		"Answer a WP waiting_decision with plan_answer. Then checkpoint each WP, consolidate, review, e2e and pr_open. ",
		"verify, review, consolidate and e2e answer within 40s with their result or with a job: give it to job_wait. ",
		"By hand: session_start (in a worktree), session_wait or session_monitor, session_output, session_prompt, session_kill. ",
		"Errors carry exit_code: 2 invalid input, 3 conflict, 4 timeout, 5 refused.")
}
