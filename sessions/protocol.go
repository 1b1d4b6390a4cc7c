package sessions

import "time"

// Operations of the daemon protocol; the handler table in server.go
// answers each, the typed methods of Client send each.
const (
	OpPing         = "ping"
	OpStart        = "start"
	OpPrompt       = "prompt"
	OpKill         = "kill"
	OpWait         = "wait"
	OpMonitor      = "monitor"
	OpGC           = "gc"
	OpPolicyAttach = "policy-attach"
	OpPolicyList   = "policy-ls"
	OpPolicyCancel = "policy-cancel"
	OpPolicyWait   = "policy-wait"
	OpStop         = "stop"
)

// Request is one call from the CLI to the daemon: one JSON line per
// connection, answered by one JSON line.
type Request struct {
	Op string `json:"op"` // one of the Op constants
	// Token is the daemon's control token (token.go); Client.Call adds it.
	Token string `json:"token,omitempty"`

	Start *StartArgs `json:"start,omitempty"`

	ID        string   `json:"id,omitempty"`
	Text      string   `json:"text,omitempty"`
	Interrupt bool     `json:"interrupt,omitempty"`
	IDs       []string `json:"ids,omitempty"`
	Until     string   `json:"until,omitempty"` // UntilTurnEnd or UntilExit
	Timeout   string   `json:"timeout,omitempty"`
	Apply     bool     `json:"apply,omitempty"`
	// Force stops the daemon though a turn is in progress.
	Force bool `json:"force,omitempty"`

	Policy *PolicyArgs `json:"policy,omitempty"`
}

// What a wait waits for.
const (
	UntilTurnEnd = "turn-end" // the session settled (or ended)
	UntilExit    = "exit"     // the session ended
)

// StartArgs start a session.
type StartArgs struct {
	Adapter  string            `json:"adapter"`
	Path     string            `json:"path"`
	SHA256   string            `json:"sha256,omitempty"`
	Model    string            `json:"model,omitempty"`
	Dir      string            `json:"dir"`
	Worktree string            `json:"worktree,omitempty"`
	Prompt   string            `json:"prompt"`
	Label    string            `json:"label,omitempty"`
	Env      []string          `json:"env"`
	Options  map[string]string `json:"options,omitempty"`
	// Ping runs the spawn protocol: start idle, check liveness with
	// sdk.PingPrompt, and only then send Prompt.
	Ping bool `json:"ping,omitempty"`
	// AllowEnv names extra variables of Env the adapter gets (a profile's
	// key variable). Their values are never stored.
	AllowEnv []string `json:"allow_env,omitempty"`
	// PassEnv names more variables of Env the adapter gets, NAME or
	// PREFIX* ([sessions] pass_env); one that holds a secret is left out.
	PassEnv []string `json:"pass_env,omitempty"`
	// Profile names the profile the session runs, for the record.
	Profile string `json:"profile,omitempty"`
	// ModelSwitch is the prompt that selects the model of an agent whose
	// model is chosen by a prompt ("/model x"), sent alone before the
	// ping; ModelSwitchExpect is the line its turn must print.
	ModelSwitch       string `json:"model_switch,omitempty"`
	ModelSwitchExpect string `json:"model_switch_expect,omitempty"`
	// ErrorLog is the agent's own error log (an absolute path): its lines
	// written during the session explain an empty turn or a failed ping.
	ErrorLog string `json:"error_log,omitempty"`
	// WedgeAfter bounds how long the daemon's state of the session and
	// what its agent is seen doing may disagree before the session is
	// called wedged (wedge.go); 0 never calls it.
	WedgeAfter time.Duration `json:"wedge_after,omitempty"`
	// ReleaseAfter is how long a settled session keeps an adapter that
	// said it can be resumed ([sessions] release_after) before the
	// process is let go; 0 keeps it for the session's life.
	ReleaseAfter time.Duration `json:"release_after,omitempty"`
	// Deadline, when set, is when the daemon ends the session whoever is
	// watching: a session run under a bounded authority (a fork branch's
	// lease) does not outlive it.
	Deadline time.Time `json:"deadline,omitzero"`
	// Sandbox is what the configuration says of the session's sandbox.
	Sandbox SandboxArgs `json:"sandbox,omitzero"`
}

// SandboxArgs are the [sandbox] settings of a session: the mode, and the
// paths [sandbox] and the profile add (~ already expanded).
type SandboxArgs struct {
	Mode     string   `json:"mode,omitempty"`
	Writable []string `json:"writable,omitempty"`
	Readable []string `json:"readable,omitempty"`
	// Within are the directories of the session's worktree, relative to
	// it, that it may write: its work package's perimeter ([sandbox]
	// perimeter = "narrow"). None: all of the worktree.
	Within []string `json:"within,omitempty"`
}

// SandboxWarning is the one line a command prints when its sessions run
// unconfined.
func SandboxWarning(missing string) string {
	return "sandbox: none: " + missing + `; agents run unconfined (set [sandbox] mode = "required" to refuse instead)`
}

// Response answers a Request.
type Response struct {
	OK       bool      `json:"ok"`
	Error    string    `json:"error,omitempty"`
	Kind     int       `json:"kind,omitempty"` // fault kind of Error
	Session  *Record   `json:"session,omitempty"`
	Records  []*Record `json:"records,omitempty"`
	Pending  []string  `json:"pending,omitempty"`
	Pid      int       `json:"pid,omitempty"`
	Policies []*Policy `json:"policies,omitempty"`
}
