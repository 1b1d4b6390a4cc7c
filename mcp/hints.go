package mcp

import (
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentproto/agentproto/app"
)

// effect is what a tool does to the repository, the ledger and the
// sessions, as the protocol's hints say it.
type effect int

const (
	// reads changes nothing.
	reads effect = iota
	// adds records, files or sessions and takes nothing away.
	adds
	// destroys can end, overwrite or replace something (a session, a
	// turn, a file, a branch's tip).
	destroys
)

// hint is one tool's annotations. open marks a tool that reaches past
// this machine: an agent session talking to its model provider, GitHub.
// idempotent is meant strictly: a second identical call adds nothing (a
// tool that records an event on every call is not). long marks a tool
// whose work can outlast the call's bound and come back as a job.
type hint struct {
	title      string
	effect     effect
	idempotent bool
	open       bool
	long       bool
}

func (h hint) annotations() *sdk.ToolAnnotations {
	a := &sdk.ToolAnnotations{Title: h.title, ReadOnlyHint: h.effect == reads, OpenWorldHint: &h.open}
	if h.effect != reads {
		destructive := h.effect == destroys
		a.DestructiveHint = &destructive
		a.IdempotentHint = h.idempotent
	} else {
		a.IdempotentHint = true
	}
	return a
}

// hints is every tool's annotations, in one place so they can be read
// (and reviewed) together; addTool refuses a tool missing here.
var hints = map[string]hint{
	// Reads.
	"ledger_log":         {title: "Read the ledger", effect: reads},
	"plan_check":         {title: "Check a plan", effect: reads},
	"plan_status":        {title: "Plan drift and waiting decisions", effect: reads},
	"spend_show":         {title: "What the agents cost", effect: reads},
	"plan_render":        {title: "Render a work package's prompt", effect: reads},
	"adapter_list":       {title: "List adapters", effect: reads},
	"profile_check":      {title: "Preflight executor profiles", effect: reads},
	"worktree_ls":        {title: "List worktrees", effect: reads},
	"worktree_changes":   {title: "A worktree's changed paths", effect: reads},
	"session_list":       {title: "List sessions", effect: reads},
	"session_monitor":    {title: "Wait for any change of some sessions", effect: reads},
	"session_wait":       {title: "Wait for sessions to end a turn or exit", effect: reads},
	"session_output":     {title: "Read a session's output", effect: reads},
	"dispatch_status":    {title: "Where a dispatch stands", effect: reads},
	"job_wait":           {title: "Wait for a job's result", effect: reads},
	"dispatch_wait":      {title: "Wait for a whole dispatch", effect: reads},
	"supervisor_observe": {title: "Observe a goal's peers", effect: reads},
	"brief_read":         {title: "Read your frozen brief", effect: reads},
	"my_changes":         {title: "Your worktree's changed paths", effect: reads},
	"quota_guard":        {title: "Your remaining turns", effect: reads},

	// Writes that add.
	"init":               {title: "Set up agentproto in the repository", effect: adds, idempotent: true},
	"plan_new":           {title: "Create a plan or add work packages", effect: adds},
	"goal_new":           {title: "Record a goal", effect: adds, idempotent: true},
	"plan_freeze":        {title: "Freeze a plan", effect: adds, idempotent: true},
	"plan_answer":        {title: "Answer a waiting work package", effect: adds, idempotent: true},
	"plan_amend":         {title: "Correct a plan's SPEC", effect: adds, idempotent: true},
	"lesson_add":         {title: "Record a lesson", effect: adds, idempotent: true},
	"spend_report":       {title: "Report the supervisor's own spend", effect: adds, idempotent: true},
	"worktree_new":       {title: "Create a worktree", effect: adds},
	"session_start":      {title: "Start an executor session", effect: adds, open: true},
	"dispatch":           {title: "Dispatch a plan's next wave", effect: adds, idempotent: true, open: true},
	"verify":             {title: "Verify a work package", effect: adds, long: true},
	"checkpoint":         {title: "Commit a verified work package", effect: adds},
	"review":             {title: "Adversarial review of a plan", effect: adds, open: true, long: true},
	"e2e":                {title: "Run the end-to-end commands", effect: adds, long: true},
	"pr_open":            {title: "Open the plan's pull request", effect: adds, idempotent: true, open: true},
	"pr_watch":           {title: "Let the daemon watch the pull request", effect: adds, idempotent: true, open: true},
	"pr_answer":          {title: "Answer a pull request escalation", effect: adds, idempotent: true},
	"policy_attach":      {title: "Attach a policy to sessions", effect: adds},
	"evidence_add":       {title: "Record evidence", effect: adds},
	"supervisor_propose": {title: "Propose a supervisor decision", effect: adds, idempotent: true},
	"supervisor_receipt": {title: "Record a supervisor receipt", effect: adds, idempotent: true},

	// Writes that can take something away.
	"plan_write":     {title: "Write plan files", effect: destroys, idempotent: true},
	"session_prompt": {title: "Prompt or interrupt a session", effect: destroys, open: true},
	"session_kill":   {title: "End a session", effect: destroys, idempotent: true},
	"policy_cancel":  {title: "Cancel a policy", effect: destroys, idempotent: true},
	"job_cancel":     {title: "Stop a job", effect: destroys, idempotent: true},
	"consolidate":    {title: "Merge verified work packages", effect: destroys, long: true},
	"worktree_rm":    {title: "Remove a worktree", effect: destroys},
	"worktree_gc":    {title: "Collect finished worktrees", effect: destroys},
	"session_gc":     {title: "Clean settled sessions", effect: destroys},
}

// durationPattern is what time.ParseDuration takes, sign excepted: every
// wait and trigger of ours wants a positive duration with a unit.
const durationPattern = `([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|ms|s|m|h)`

// Enums and patterns inference cannot see: each is what the handler
// (or the function it calls) refuses otherwise; mcp tests hold the two
// together.
var (
	untilEnum    = []any{"turn-end", "exit"}
	onPattern    = `^(turn-end|idle:(` + durationPattern + `)+)$`
	actionRe     = `(verify|checkpoint|kill|notify|dispatch|prompt-file:[^,]+)`
	doPattern    = `^ *` + actionRe + ` *(, *` + actionRe + ` *)*$`
	waitPattern  = `^(` + durationPattern + `)+$`
	longPattern  = `^(0|(` + durationPattern + `)+)$`
	zero, one    = 0.0, 1.0
	maxLastF     = float64(app.MaxTailLines)
	maxEventsF   = float64(maxLogEvents)
	refinedInput = map[string]func(props map[string]*jsonschema.Schema){
		"session_wait": func(p map[string]*jsonschema.Schema) {
			p["until"].Enum = untilEnum
			p["timeout"].Pattern = waitPattern
		},
		"session_monitor": func(p map[string]*jsonschema.Schema) { p["for"].Pattern = waitPattern },
		"job_wait":        func(p map[string]*jsonschema.Schema) { p["for"].Pattern = waitPattern },
		"dispatch_wait":   func(p map[string]*jsonschema.Schema) { p["for"].Pattern = waitPattern },
		"policy_attach": func(p map[string]*jsonschema.Schema) {
			p["on"].Pattern = onPattern
			p["do"].Pattern = doPattern
		},
		"verify":         func(p map[string]*jsonschema.Schema) { p["wait"].Pattern = longPattern },
		"consolidate":    func(p map[string]*jsonschema.Schema) { p["wait"].Pattern = longPattern },
		"e2e":            func(p map[string]*jsonschema.Schema) { p["wait"].Pattern = longPattern },
		"review":         func(p map[string]*jsonschema.Schema) { p["wait"].Pattern = longPattern },
		"session_output": func(p map[string]*jsonschema.Schema) { p["last"].Minimum, p["last"].Maximum = &zero, &maxLastF },
		"ledger_log":     func(p map[string]*jsonschema.Schema) { p["limit"].Minimum, p["limit"].Maximum = &zero, &maxEventsF },
		"dispatch":       func(p map[string]*jsonschema.Schema) { p["max_parallel"].Minimum = &zero },
	}
)

func refineInput(name string, s *jsonschema.Schema) {
	if f := refinedInput[name]; f != nil {
		f(s.Properties)
	}
}

// outputSchema is the schema of what a tool answers: its document (an
// object with "schema" first, a list as {"schema", "items"}), or an error
// document (errorDoc: a client validates the structured content of a
// tool error too), or for a long tool a job to wait on (app.JobDoc).
func outputSchema[Out any](long bool) (*jsonschema.Schema, error) {
	types := []reflect.Type{reflect.TypeFor[Out](), reflect.TypeFor[errorDoc]()}
	if long {
		types = append(types, reflect.TypeFor[app.JobDoc]())
	}
	s := &jsonschema.Schema{Type: "object"}
	for _, t := range types {
		alt, err := documentSchema(t)
		if err != nil {
			return nil, err
		}
		s.AnyOf = append(s.AnyOf, alt)
	}
	return s, nil
}

func documentSchema(t reflect.Type) (*jsonschema.Schema, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	opts := &jsonschema.ForOptions{TypeSchemas: typeSchemas}
	name := func() *jsonschema.Schema {
		return &jsonschema.Schema{Type: "string", Description: "the document's schema name, as `--json` stamps it"}
	}
	if t.Kind() == reflect.Slice {
		inferred, err := jsonschema.ForType(t.Elem(), opts)
		if err != nil {
			return nil, err
		}
		item := *inferred
		withName(&item, name())
		return &jsonschema.Schema{Type: "object", Required: []string{"schema", "items"},
			Properties: map[string]*jsonschema.Schema{"schema": name(), "items": {Type: "array", Items: &item}}}, nil
	}
	inferred, err := jsonschema.ForType(t, opts)
	if err != nil {
		return nil, err
	}
	s := *inferred
	s.Types, s.Type = nil, "object"
	withName(&s, name())
	return &s, nil
}

// withName adds the "schema" property to an object schema, in place: s
// is a schema inference made, never one of typeSchemas (copied first).
func withName(s, name *jsonschema.Schema) {
	props := map[string]*jsonschema.Schema{"schema": name}
	for k, v := range s.Properties {
		props[k] = v
	}
	s.Properties = props
}
