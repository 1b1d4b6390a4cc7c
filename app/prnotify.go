package app

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/agentproto/agentproto/internal/secrets"
	"github.com/agentproto/agentproto/plugins/host"
	"github.com/agentproto/agentproto/reactions"
)

// notifyTimeout bounds the notify command: it tells a person something
// (notify-send, a chat webhook), and a poll must not hang on it.
const notifyTimeout = time.Minute

// prNotifier runs command — [policies] notify, as the daemon's notify
// action does — for a pull request's notices, in the work tree, with
// what the notice is about in its environment. A command from a
// committed agentproto.toml runs only once trusted (policy trust), read
// again at each notice so a change made since is refused.
func prNotifier(workTree, command string) func(context.Context, reactions.Notice) error {
	return func(ctx context.Context, n reactions.Notice) error {
		if err := host.RequireNotifyTrust(workTree, command); err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(ctx, notifyTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, "sh", "-c", command)
		cmd.Dir = workTree
		// Never our tokens: the command is the user's, the values are
		// not its business.
		cmd.Env = append(secrets.ChildEnv(), "AGENTPROTO_EVENT="+n.Event, "AGENTPROTO_PROJECT="+n.Project,
			"AGENTPROTO_PR="+strconv.Itoa(n.Number), "AGENTPROTO_PR_URL="+n.URL, "AGENTPROTO_ITEM="+n.Item, "AGENTPROTO_MESSAGE="+n.Message)
		cmd.WaitDelay = time.Second
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			tail, _ := secrets.ScrubTail(out.Bytes(), 512)
			return fmt.Errorf("[policies] notify failed (%v): %s", err, strings.TrimSpace(string(tail)))
		}
		return nil
	}
}
