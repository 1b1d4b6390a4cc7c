package sessions

import (
	"strconv"
	"strings"
	"time"

	"github.com/agentproto/agentproto/internal/fault"
)

// Policy actions run by the daemon when a trigger fires, without anyone
// polling. They run in order and stop at the first that fails, so
// "verify,checkpoint,kill" kills only a verified session.
const (
	ActVerify     = "verify"
	ActCheckpoint = "checkpoint"
	ActKill       = "kill"
	ActNotify     = "notify"
	ActPromptFile = "prompt-file" // prompt-file:PATH
	// ActDispatch continues the plan's dispatch (sessions/daemon/policydispatch.go).
	ActDispatch = "dispatch"
	// ActPRWatch polls a plan's pull request and reacts, as pr watch
	// --once does, every so often (sessions/daemon/prwatch.go). It takes
	// no sessions: its trigger is every:DURATION.
	ActPRWatch = "pr-watch"
)

// Policy is attached to sessions.
type Policy struct {
	ID       string            `json:"id"`
	Sessions []string          `json:"sessions"`
	On       string            `json:"on"` // turn-end, or idle:DURATION
	Do       []string          `json:"do"`
	Project  string            `json:"project,omitempty"`
	WP       map[string]string `json:"wp,omitempty"` // session -> WP id
	Dir      string            `json:"dir"`
	Notify   string            `json:"notify,omitempty"`
	Dispatch *DispatchArgs     `json:"dispatch,omitempty"`
	Created  time.Time         `json:"created"`
	Fired    int               `json:"fired"`
	Canceled bool              `json:"canceled"`
	Last     []ActionResult    `json:"last_results,omitempty"`
	Repeat   bool              `json:"repeat,omitempty"`
}

// ActionResult is what one action did.
type ActionResult struct {
	Session string `json:"session"`
	Action  string `json:"action"`
	OK      bool   `json:"ok"`
	Detail  string `json:"detail,omitempty"`
}

// PolicyArgs attach a policy.
type PolicyArgs struct {
	Sessions []string          `json:"sessions"`
	On       string            `json:"on"`
	Do       []string          `json:"do"`
	Project  string            `json:"project,omitempty"`
	WP       map[string]string `json:"wp,omitempty"`
	Dir      string            `json:"dir"`
	Notify   string            `json:"notify,omitempty"`
	// Dispatch are the options the dispatch action runs with.
	Dispatch *DispatchArgs `json:"dispatch,omitempty"`
	// Repeat lets a policy that prompts (prompt-file) fire on every turn
	// end of a session; by default it fires once a session, as each
	// prompt it sends ends in another turn end.
	Repeat bool `json:"repeat,omitempty"`
	// ForgeToken is the GitHub token a pr-watch policy polls with. The
	// daemon is started without the user's tokens (DaemonEnv), so the
	// command that attaches the watch hands it over; the daemon keeps it
	// in memory only, never in the policy's file or answers.
	ForgeToken string `json:"forge_token,omitempty"`
}

// ParseActions validates an action list.
func ParseActions(list string) ([]string, error) {
	var out []string
	for _, a := range strings.Split(list, ",") {
		a = strings.TrimSpace(a)
		name, arg, _ := strings.Cut(a, ":")
		switch name {
		case ActVerify, ActCheckpoint, ActKill, ActNotify, ActDispatch:
			if arg != "" {
				return nil, fault.Invalidf("action %s takes no argument", name)
			}
		case ActPromptFile:
			if arg == "" {
				return nil, fault.Invalidf("prompt-file needs a path: prompt-file:PATH")
			}
		default:
			return nil, fault.Invalidf("unknown action %q (verify, checkpoint, kill, notify, dispatch, prompt-file:PATH)", a)
		}
		out = append(out, a)
	}
	return out, nil
}

// ParseTrigger validates --on: turn-end or idle:DURATION.
func ParseTrigger(on string) (time.Duration, error) {
	if on == "turn-end" {
		return 0, nil
	}
	if d, ok := strings.CutPrefix(on, "idle:"); ok {
		dur, err := time.ParseDuration(d)
		if err != nil || dur <= 0 {
			return 0, fault.Invalidf("--on idle:%s needs a duration with a unit, such as idle:15m", d)
		}
		return dur, nil
	}
	return 0, fault.Invalidf("--on takes turn-end or idle:DURATION, not %q", on)
}

// ParseEvery reads the trigger of a pr-watch policy, every:DURATION, at
// least a second apart (GitHub asks pollers to be gentle).
func ParseEvery(on string) (time.Duration, error) {
	d, ok := strings.CutPrefix(on, "every:")
	if !ok {
		return 0, fault.Invalidf("a pr-watch policy fires on every:DURATION, not %q", on)
	}
	dur, err := time.ParseDuration(d)
	if err != nil || dur < time.Second {
		return 0, fault.Invalidf("every:%s needs a duration of a second or more, with a unit, such as every:1m", d)
	}
	return dur, nil
}

// DispatchArgs are the options of the dispatch run a policy continues:
// those the first `dispatch --no-wait` was given, so every later wave
// runs as the first did.
type DispatchArgs struct {
	WPs         []string `json:"wps,omitempty"`
	MaxParallel int      `json:"max_parallel,omitempty"`
	NoPing      bool     `json:"no_ping,omitempty"`
}

// Validate refuses what could not be a work package id or a count: the
// values become arguments of our own binary.
func (a *DispatchArgs) Validate() error {
	if a == nil {
		return nil
	}
	if a.MaxParallel < 0 {
		return fault.Invalidf("dispatch max_parallel must be 1 or more, not %d", a.MaxParallel)
	}
	for _, wp := range a.WPs {
		if wp == "" || strings.HasPrefix(wp, "-") || strings.ContainsAny(wp, " \t\n=") {
			return fault.Invalidf("dispatch work package %q is not a WP id", wp)
		}
	}
	return nil
}

// Argv is the dispatch command line: --no-wait, so the run launches the
// next wave and returns, leaving it to the policy it attaches.
func (a *DispatchArgs) Argv(project string) []string {
	args := []string{"dispatch", project, "--no-wait"}
	if a == nil {
		return args
	}
	for _, wp := range a.WPs {
		args = append(args, "--wp="+wp)
	}
	if a.MaxParallel > 0 {
		args = append(args, "--max-parallel="+strconv.Itoa(a.MaxParallel))
	}
	if a.NoPing {
		args = append(args, "--no-ping")
	}
	return args
}
