package mcp

import (
	"github.com/agentproto/agentproto/pipeline"
	"github.com/agentproto/agentproto/sessions"
)

// The documents of tools whose command prints no type of its own. Each
// field is what the matching CLI command prints with --json.

type freezeDoc struct {
	Record  string            `json:"record" jsonschema:"the plan_frozen record id"`
	Written bool              `json:"written" jsonschema:"false when the same plan was frozen already"`
	Files   map[string]string `json:"files" jsonschema:"file name to sha256"`
}

type amendDoc struct {
	Project  string `json:"project"`
	Recorded bool   `json:"recorded" jsonschema:"false when this correction was recorded already"`
}

type writtenDoc struct {
	Written bool `json:"written" jsonschema:"false when it was recorded already"`
}

type promptDoc struct {
	ID        string `json:"id"`
	Sent      bool   `json:"sent"`
	Interrupt bool   `json:"interrupt"`
}

type monitorDoc struct {
	Sessions     []*sessions.Record `json:"sessions"`
	WaitedAtMost string             `json:"waited_at_most"`
}

type waitDoc struct {
	Sessions []*sessions.Record `json:"sessions"`
	// Pending are the sessions that did not reach until in this call.
	Pending []string `json:"pending" jsonschema:"sessions that have not reached until yet: call again while not empty"`
	Capped  bool     `json:"capped,omitempty" jsonschema:"the call's bound, not the timeout, ended the wait"`
	Note    string   `json:"note,omitempty"`
}

type canceledDoc struct {
	ID       string `json:"id"`
	Canceled bool   `json:"canceled"`
}

type dispatchDoc struct {
	Project       string                           `json:"project"`
	Dispatches    map[string][]pipeline.Dispatch   `json:"dispatches" jsonschema:"by work package, oldest first"`
	Verifications map[string]pipeline.Verification `json:"verifications" jsonschema:"the latest, by work package"`
	// OK and Error are a dispatch's own: dispatch_status has neither.
	OK    *bool  `json:"ok,omitempty"`
	Error string `json:"error,omitempty"`
}

// prDoc is pr open's document: the pull request opened or updated, or
// with dry_run the push and the request that would be sent.
type prDoc struct {
	Project string           `json:"project"`
	Repo    string           `json:"repo"`
	Head    string           `json:"head,omitempty"`
	Base    string           `json:"base,omitempty"`
	Number  int              `json:"number,omitempty"`
	URL     string           `json:"url,omitempty"`
	Updated *bool            `json:"updated,omitempty"`
	DryRun  bool             `json:"dry_run,omitempty"`
	Request *pipeline.PRPlan `json:"request,omitempty" jsonschema:"with dry_run: the push (argv) and the request (method, url, JSON body), as they would be sent"`
}

func prResultDoc(r *pipeline.PRResult) prDoc {
	updated := r.Updated
	return prDoc{Project: r.Project, Repo: r.Repo, Head: r.Head, Base: r.Base, Number: r.Number, URL: r.URL, Updated: &updated}
}

type briefDoc struct {
	Project string `json:"project"`
	WP      string `json:"wp"`
	Name    string `json:"name"`
	Text    string `json:"text"`
}

type evidenceDoc struct {
	Goal     string `json:"goal"`
	Agent    string `json:"agent"`
	Ref      string `json:"ref"`
	Recorded bool   `json:"recorded"`
}
