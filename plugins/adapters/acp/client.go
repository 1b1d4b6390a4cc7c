package acp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/agentproto/agentproto/plugins/sdk"
)

// client is agentproto's side of the protocol: it turns session updates
// into events and answers the agent's permission and file-system requests
// itself, so a write outside the perimeter is refused when it is asked for.
type client struct {
	out   sdk.Emitter
	per   *Perimeter
	files *files
	// execute is options.execute: "allow", "deny", or "" for the default,
	// which refuses the shell inside a work package's perimeter.
	execute string

	mu        sync.Mutex
	lineStart bool // the output so far ends a line
	// message is the id of the agent message being streamed; apart says
	// something else came since its last chunk (a thought, a tool call, a
	// plan). Either way the next message starts on a line of its own.
	message string
	apart   bool
	tools   map[string]*toolState     // tool calls seen, by id
	order   []string                  // tool call ids, oldest first
	denied  map[string]map[string]int // tool -> path -> count, for the turn
	// toolSeen is closed (and replaced) when a tool call notification has
	// been taken in.
	toolSeen chan struct{}
	// shellNoted: the note that allowed shell commands are not confined
	// has been written.
	shellNoted bool
	// cost follows the session's cumulative cost (usage.go).
	cost sessionCost
}

// toolWait bounds how long a permission request that does not say its
// kind waits for the tool call notification that does. The SDK runs an
// incoming request at once but queues notifications, so the request can
// overtake the tool_call sent before it; judged without it, the request
// would lose the kind and the paths the tool call named. The wait ends
// as soon as the notification is in: only a request that never had one
// (codex-acp's permission grants) waits the whole bound.
const toolWait = 500 * time.Millisecond

type toolState struct {
	title  string
	kind   acpsdk.ToolKind
	paths  []string
	status acpsdk.ToolCallStatus
	noted  bool // a notification about it has been taken in
}

var _ acpsdk.Client = (*client)(nil)

func newClient(out sdk.Emitter, per *Perimeter, f *files, execute string) *client {
	return &client{out: out, per: per, files: f, execute: execute, lineStart: true, tools: map[string]*toolState{}, toolSeen: make(chan struct{})}
}

// say writes output, starting on a new line when line is set.
func (c *client) say(text string, line bool) {
	if text == "" {
		return
	}
	c.mu.Lock()
	if line && !c.lineStart {
		text = "\n" + text
	}
	c.lineStart = strings.HasSuffix(text, "\n")
	c.mu.Unlock()
	c.out.Output([]byte(text))
}

// endTurn closes the last line of a turn's output.
func (c *client) endTurn() {
	c.mu.Lock()
	open := !c.lineStart
	c.lineStart = true
	c.mu.Unlock()
	if open {
		c.out.Output([]byte("\n"))
	}
}

// SessionUpdate maps what the agent reports: message text as it streams,
// one line per tool call and per failed tool, plans as checklists, the
// session's cost as the turn's usage.
func (c *client) SessionUpdate(_ context.Context, n acpsdk.SessionNotification) error {
	u := n.Update
	switch {
	case u.AgentMessageChunk != nil:
		if t := u.AgentMessageChunk.Content.Text; t != nil {
			c.say(t.Text, c.newMessage(u.AgentMessageChunk.MessageId))
		}
		return nil
	case u.AgentThoughtChunk != nil:
		// Not shown, but it ends the message before it.
	case u.ToolCall != nil:
		tc := u.ToolCall
		st := c.tool(string(tc.ToolCallId))
		c.mu.Lock()
		st.title, st.kind, st.status = tc.Title, tc.Kind, tc.Status
		st.paths = locations(tc.Locations, tc.RawInput)
		c.seenLocked(st)
		c.mu.Unlock()
		c.say(fmt.Sprintf("[tool] %s%s\n", tc.Title, kindNote(tc.Kind)), true)
	case u.ToolCallUpdate != nil:
		tu := u.ToolCallUpdate
		st := c.tool(string(tu.ToolCallId))
		c.mu.Lock()
		if tu.Title != nil {
			st.title = *tu.Title
		}
		if tu.Kind != nil {
			st.kind = *tu.Kind
		}
		if ps := locations(tu.Locations, tu.RawInput); len(ps) > 0 {
			st.paths = ps
		}
		failed := tu.Status != nil && *tu.Status == acpsdk.ToolCallStatusFailed && st.status != acpsdk.ToolCallStatusFailed
		if tu.Status != nil {
			st.status = *tu.Status
		}
		title := st.title
		c.seenLocked(st)
		c.mu.Unlock()
		if failed {
			why := ""
			for _, tcc := range tu.Content {
				if tcc.Content != nil && tcc.Content.Content.Text != nil {
					why = ": " + firstLine(tcc.Content.Content.Text.Text)
					break
				}
			}
			c.say(fmt.Sprintf("[tool failed] %s%s\n", title, why), true)
		}
	case u.Plan != nil:
		var b strings.Builder
		b.WriteString("[plan]\n")
		for _, e := range u.Plan.Entries {
			mark := " "
			switch e.Status {
			case acpsdk.PlanEntryStatusCompleted:
				mark = "x"
			case acpsdk.PlanEntryStatusInProgress:
				mark = "~"
			}
			fmt.Fprintf(&b, "- [%s] %s\n", mark, e.Content)
		}
		c.say(b.String(), true)
	case u.UsageUpdate != nil:
		c.onUsageUpdate(u.UsageUpdate)
	}
	if u.AgentThoughtChunk != nil || u.ToolCall != nil || u.ToolCallUpdate != nil || u.Plan != nil {
		c.mu.Lock()
		c.apart = true
		c.mu.Unlock()
	}
	return nil
}

// newMessage reports whether a message chunk starts another message than
// the one streamed so far: its id differs (agents that send ids), or
// something else came in between (those that do not). Agents send one
// message's text without a final newline, and two messages would
// otherwise run together ("…the fix.Now the tests").
func (c *client) newMessage(id *string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := ""
	if id != nil {
		now = *id
	}
	fresh := c.apart || now != c.message
	c.apart, c.message = false, now
	return fresh
}

// firstLine keeps a tool's error to one line of output.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

func kindName(k acpsdk.ToolKind) string {
	if k == "" {
		return "not given"
	}
	return string(k)
}

func kindNote(k acpsdk.ToolKind) string {
	if k == "" || k == acpsdk.ToolKindOther {
		return ""
	}
	return " (" + string(k) + ")"
}

// seenLocked marks st noted and wakes the requests waiting for it.
func (c *client) seenLocked(st *toolState) {
	st.noted = true
	close(c.toolSeen)
	c.toolSeen = make(chan struct{})
}

// waitTool waits up to toolWait for a notification about tool call id.
func (c *client) waitTool(id string) {
	deadline := time.NewTimer(toolWait)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		st, ok := c.tools[id]
		noted := ok && st.noted
		seen := c.toolSeen
		c.mu.Unlock()
		if noted {
			return
		}
		select {
		case <-seen:
		case <-deadline.C:
			return
		}
	}
}

func (c *client) tool(id string) *toolState {
	c.mu.Lock()
	defer c.mu.Unlock()
	st, ok := c.tools[id]
	if !ok {
		st = &toolState{}
		c.tools[id] = st
		c.order = append(c.order, id)
		if len(c.order) > 4096 { // a long session: forget the oldest
			delete(c.tools, c.order[0])
			c.order = c.order[1:]
		}
	}
	return st
}

// RequestPermission allows what stays in bounds and refuses the rest:
// writes (edit, delete, move) only inside the perimeter, reads only inside
// the worktree, the shell unless execute = "deny". A refusal is recorded as
// a permission_denied warning naming the tool and the path.
func (c *client) RequestPermission(_ context.Context, r acpsdk.RequestPermissionRequest) (acpsdk.RequestPermissionResponse, error) {
	tc := r.ToolCall
	if tc.Kind == nil {
		c.waitTool(string(tc.ToolCallId))
	}
	st := c.tool(string(tc.ToolCallId))
	c.mu.Lock()
	title, kind := st.title, st.kind
	if tc.Title != nil && *tc.Title != "" {
		title = *tc.Title
	}
	if tc.Kind != nil {
		kind = *tc.Kind
	}
	// What the request names and what the tool call named before: a
	// path either mentions is judged.
	paths := locations(tc.Locations, tc.RawInput)
	for _, p := range st.paths {
		if !contains(paths, p) {
			paths = append(paths, p)
		}
	}
	c.mu.Unlock()
	if title == "" {
		title = string(tc.ToolCallId)
	}
	path, why := c.judge(kind, paths)
	if why == nil {
		return choose(r.Options, acpsdk.PermissionOptionKindAllowOnce, acpsdk.PermissionOptionKindAllowAlways), nil
	}
	c.deny(title, path, why)
	return choose(r.Options, acpsdk.PermissionOptionKindRejectOnce, acpsdk.PermissionOptionKindRejectAlways), nil
}

// judge returns the first path (or "") that rules a tool call out, and why.
func (c *client) judge(kind acpsdk.ToolKind, paths []string) (string, error) {
	switch kind {
	case acpsdk.ToolKindExecute:
		return "", c.shell()
	case acpsdk.ToolKindRead, acpsdk.ToolKindSearch:
		for _, p := range paths {
			if _, err := c.per.Rel(p); err != nil {
				return p, err
			}
		}
		return "", nil
	case acpsdk.ToolKindThink, acpsdk.ToolKindFetch, acpsdk.ToolKindSwitchMode:
		return "", nil
	}
	// edit, delete, move, and tools that do not say they only read:
	// writes, judged by the perimeter. One whose paths cannot be read
	// could write anywhere, so a work package's perimeter refuses it.
	if len(paths) == 0 {
		if c.per.Bounded() {
			return "", fmt.Errorf("no path could be read from the request (kind %s), and a write the perimeter cannot check is refused", kindName(kind))
		}
		return "", nil
	}
	for _, p := range paths {
		rel, err := c.per.Rel(p)
		if err == nil {
			err = c.per.CheckWrite(rel)
		}
		if err != nil {
			return p, err
		}
	}
	return "", nil
}

// shell says why the agent's shell is refused, or nil. A command can
// write anywhere its user can, so inside a work package's perimeter the
// shell is refused unless options.execute allows it; a plain session,
// like the agent run by hand, has it unless options.execute denies it.
// An allowed shell inside a perimeter is noted once in the output: what
// its commands change only verify sees.
func (c *client) shell() error {
	switch {
	case c.execute == "deny":
		return errors.New("the shell is refused for this session (execute = \"deny\")")
	case !c.per.Bounded():
		return nil
	case c.execute != "allow":
		return errors.New("the shell is refused inside a work package's perimeter, which its commands could write past (options.execute = \"allow\" permits it)")
	}
	c.mu.Lock()
	first := !c.shellNoted
	c.shellNoted = true
	c.mu.Unlock()
	if first {
		c.say("[agentproto] the shell is allowed (execute = \"allow\"): its commands are not held to the work package's perimeter; verify checks what they changed\n", true)
	}
	return nil
}

// choose answers with the first option of the preferred kinds ("once"
// first: "always" would stop the agent asking about later paths). With no
// such option the request is answered as cancelled, which no agent takes
// as a yes.
func choose(opts []acpsdk.PermissionOption, kinds ...acpsdk.PermissionOptionKind) acpsdk.RequestPermissionResponse {
	for _, k := range kinds {
		for _, o := range opts {
			if o.Kind == k {
				return acpsdk.RequestPermissionResponse{Outcome: acpsdk.RequestPermissionOutcome{Selected: &acpsdk.RequestPermissionOutcomeSelected{OptionId: o.OptionId}}}
			}
		}
	}
	return acpsdk.RequestPermissionResponse{Outcome: acpsdk.RequestPermissionOutcome{Cancelled: &acpsdk.RequestPermissionOutcomeCancelled{}}}
}

// deny records a refusal, once per tool and path in a turn.
func (c *client) deny(tool, path string, why error) {
	c.mu.Lock()
	if c.denied == nil {
		c.denied = map[string]map[string]int{}
	}
	if c.denied[tool] == nil {
		c.denied[tool] = map[string]int{}
	}
	c.denied[tool][path]++
	first := c.denied[tool][path] == 1
	c.mu.Unlock()
	if first {
		text := tool
		if path != "" && !strings.Contains(tool, path) {
			text += " " + path
		}
		warn(c.out, WarnPermissionDenied, text+": "+why.Error())
	}
}

// deniedInTurn says whether something was refused in this turn.
func (c *client) deniedInTurn() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.denied) > 0
}

// newTurn forgets the refusals already reported.
func (c *client) newTurn() {
	c.mu.Lock()
	c.denied = nil
	c.mu.Unlock()
}

// toolFor names the tool call a file-system request belongs to: the most
// recent one that names the path, else the protocol method itself (a guess
// could blame the wrong tool).
func (c *client) toolFor(path, method string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := len(c.order) - 1; i >= 0; i-- {
		st := c.tools[c.order[i]]
		for _, p := range st.paths {
			if p == path {
				return st.title
			}
		}
	}
	return method
}

// ReadTextFile reads inside the worktree only.
func (c *client) ReadTextFile(_ context.Context, r acpsdk.ReadTextFileRequest) (acpsdk.ReadTextFileResponse, error) {
	rel, err := c.per.Rel(r.Path)
	if err != nil {
		c.deny(c.toolFor(r.Path, acpsdk.ClientMethodFsReadTextFile), r.Path, err)
		return acpsdk.ReadTextFileResponse{}, refusal(r.Path, err)
	}
	line, limit := 0, 0
	if r.Line != nil {
		line = *r.Line
	}
	if r.Limit != nil {
		limit = *r.Limit
	}
	text, err := c.files.read(rel, line, limit)
	if errors.Is(err, fs.ErrNotExist) {
		// ACP's "resource not found": agents take it as a new file
		// (Gemini CLI reads before it writes).
		return acpsdk.ReadTextFileResponse{}, &acpsdk.RequestError{Code: -32002, Message: "Resource not found: " + r.Path}
	}
	if err != nil {
		return acpsdk.ReadTextFileResponse{}, acpsdk.NewInternalError(map[string]any{"details": err.Error()})
	}
	return acpsdk.ReadTextFileResponse{Content: text}, nil
}

// WriteTextFile writes inside the perimeter only, never through a symlink.
func (c *client) WriteTextFile(_ context.Context, r acpsdk.WriteTextFileRequest) (acpsdk.WriteTextFileResponse, error) {
	rel, err := c.per.Rel(r.Path)
	if err == nil {
		err = c.per.CheckWrite(rel)
	}
	if err != nil {
		c.deny(c.toolFor(r.Path, acpsdk.ClientMethodFsWriteTextFile), r.Path, err)
		return acpsdk.WriteTextFileResponse{}, refusal(r.Path, err)
	}
	if err := c.files.write(rel, r.Content); err != nil {
		return acpsdk.WriteTextFileResponse{}, acpsdk.NewInternalError(map[string]any{"details": err.Error()})
	}
	return acpsdk.WriteTextFileResponse{}, nil
}

// refusal is the error the agent sees: plain words its model can act on.
func refusal(path string, why error) error {
	return &acpsdk.RequestError{Code: -32603, Message: fmt.Sprintf("refused by agentproto: %s is %v", path, why)}
}

// Terminals are not offered (initialize says terminal: false); an agent
// that asks anyway is told so. Its own shell tool is judged by
// RequestPermission instead.
var errNoTerminal = acpsdk.NewMethodNotFound("terminal/* (agentproto offers no terminals; use your own shell tool)")

func (c *client) CreateTerminal(context.Context, acpsdk.CreateTerminalRequest) (acpsdk.CreateTerminalResponse, error) {
	return acpsdk.CreateTerminalResponse{}, errNoTerminal
}
func (c *client) KillTerminal(context.Context, acpsdk.KillTerminalRequest) (acpsdk.KillTerminalResponse, error) {
	return acpsdk.KillTerminalResponse{}, errNoTerminal
}
func (c *client) TerminalOutput(context.Context, acpsdk.TerminalOutputRequest) (acpsdk.TerminalOutputResponse, error) {
	return acpsdk.TerminalOutputResponse{}, errNoTerminal
}
func (c *client) ReleaseTerminal(context.Context, acpsdk.ReleaseTerminalRequest) (acpsdk.ReleaseTerminalResponse, error) {
	return acpsdk.ReleaseTerminalResponse{}, errNoTerminal
}
func (c *client) WaitForTerminalExit(context.Context, acpsdk.WaitForTerminalExitRequest) (acpsdk.WaitForTerminalExitResponse, error) {
	return acpsdk.WaitForTerminalExitResponse{}, errNoTerminal
}
