package app

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agentproto/agentproto/forge"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/secrets"
	"github.com/agentproto/agentproto/pipeline"
	"github.com/agentproto/agentproto/plugins/catalog"
	"github.com/agentproto/agentproto/reactions"
	"github.com/agentproto/agentproto/sessions"
)

// What lets a pull request be watched with nobody at a terminal: the
// sessions daemon's watch, the poll lock that keeps it and a foreground
// watch apart, and [policies] notify to tell a person what happened.

// PRDaemonWatch is the sessions daemon's watch of a plan's pull request.
type PRDaemonWatch struct {
	Project string `json:"project"`
	Number  int    `json:"number"`
	// Every is the time between the end of a poll and the next.
	Every  string           `json:"every"`
	Policy *sessions.Policy `json:"policy"`
}

// WatchPRInDaemon hands the watch of the plan's pull request to the
// sessions daemon, which polls it as pr watch --once does every interval
// ([reactions] interval when 0) and reacts, with no terminal open, until
// it is closed or merged (or the policy is canceled, or the daemon
// stops). The daemon is started without the user's tokens, so the token
// found here is handed to it, kept in its memory only. A second call for
// the same plan returns the watch that runs.
func (e *Env) WatchPRInDaemon(ctx context.Context, project string, interval time.Duration) (*PRDaemonWatch, error) {
	pe, cfg, err := e.Pipeline(ctx, project)
	if err != nil {
		return nil, err
	}
	st, err := pipeline.ReadState(pe.Ledger, pe.Project.Name)
	if err != nil {
		return nil, err
	}
	if st.PR == nil || st.PR.Number == 0 {
		return nil, fault.Refusedf("plan %s has no pull request to watch: git agentproto pr open %s", pe.Project.Name, pe.Project.Name)
	}
	repo, err := splitRepo(st.PR.Repo)
	if err != nil {
		return nil, err
	}
	tok, err := forge.Token(repo.Host)
	if err != nil {
		return nil, err
	}
	if interval == 0 {
		interval = cfg.Reactions.Interval.Duration
	}
	if interval < time.Second {
		return nil, fault.Invalidf("--interval %s: poll at most once a second (GitHub asks pollers to be gentle)", interval)
	}
	// Refused now rather than found at the first notice (an escalation
	// notifies whatever [reactions] says), in a daemon nobody watches.
	if cfg.Policies.Notify != "" {
		if err := catalog.RequireNotifyTrust(pe.Repo.WorkTree, cfg.Policies.Notify); err != nil {
			return nil, err
		}
	}
	c, err := e.Sessions()
	if err != nil {
		return nil, err
	}
	p, err := c.AttachPolicy(ctx, sessions.PolicyArgs{On: "every:" + interval.String(), Do: []string{sessions.ActPRWatch},
		Project: pe.Project.Name, Dir: pe.Repo.WorkTree, ForgeToken: tok})
	if err != nil {
		return nil, err
	}
	return &PRDaemonWatch{Project: pe.Project.Name, Number: st.PR.Number, Every: p.On[len("every:"):], Policy: p}, nil
}

// lockPoll takes the plan's poll lock for one poll, so the daemon's watch
// and a foreground pr watch never react to one item together (two turns,
// two pushes). flock(2) on a file in the common git dir: released when
// the process ends. It returns nil when another poll holds it.
func lockPoll(commonDir, project string) (func(), error) {
	path := filepath.Join(commonDir, "agentproto", "reactions", project+".lock")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if err == syscall.EWOULDBLOCK {
			return nil, nil
		}
		return nil, err
	}
	return func() { f.Close() }, nil
}

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
		if err := catalog.RequireNotifyTrust(workTree, command); err != nil {
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
