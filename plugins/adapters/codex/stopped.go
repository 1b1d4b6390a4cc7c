package codex

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/agentproto/agentproto/plugins/adapters/cliturn"
	"github.com/agentproto/agentproto/plugins/sdk"
)

// codex's shell tool (exec_command) waits yield_time_ms (10 s by default)
// for a command, then tells the model "Process running with session ID N"
// and lets it poll with write_stdin. A model that ends its turn instead
// leaves the command running, and codex exec stops it as it exits: what it
// had not written yet is never written, while the turn ends as any other
// (measured with 0.169: `sleep 2; printf hi > f` yielded after 0.5 s, the
// turn completed, f never appeared, and the JSON stream said nothing of
// the command). The rollout says it all; the adapter reads it there.

// runningSession is codex's word for a command that outlived the wait.
var runningSession = regexp.MustCompile(`Process running with session ID ([0-9]+)`)

// commands follows the shell commands of one turn through its rollout.
type commands struct {
	calls   map[string]toolCall // by call_id
	running map[int]string      // session → command
}

type toolCall struct {
	name    string
	cmd     string // exec_command's
	session int    // write_stdin's
}

func newCommands() *commands {
	return &commands{calls: map[string]toolCall{}, running: map[int]string{}}
}

// call notes a function_call of the model.
func (c *commands) call(name, id, arguments string) {
	var args struct {
		Cmd     string `json:"cmd"`
		Session int    `json:"session_id"`
	}
	json.Unmarshal([]byte(arguments), &args)
	c.calls[id] = toolCall{name: name, cmd: args.Cmd, session: args.Session}
}

// output notes what the model was told of a call.
func (c *commands) output(id, text string) {
	tc, ok := c.calls[id]
	if !ok {
		return
	}
	if m := runningSession.FindStringSubmatch(text); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil && tc.name == "exec_command" {
			c.running[n] = tc.cmd
		}
		return
	}
	if tc.name == "write_stdin" && strings.Contains(text, "Process exited with code") {
		delete(c.running, tc.session)
	}
}

// warn reports each command still running when the turn ended.
func (c *commands) warn(t *cliturn.Turn) {
	ids := make([]int, 0, len(c.running))
	for id := range c.running {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		t.Warn(sdk.WarnCommandStopped, fmt.Sprintf("turn %d ended with `%s` still running (codex session %d): codex exec stopped it on exit, so what it had not done is not done",
			t.N, c.running[id], id))
	}
}
