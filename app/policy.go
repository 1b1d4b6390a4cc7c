package app

import (
	"context"
	"strings"

	"github.com/agentproto/agentproto/plugins/catalog"
	"github.com/agentproto/agentproto/sessions"
)

// PolicyOptions are the inputs of AttachPolicy.
type PolicyOptions struct {
	Sessions []string
	// On is turn-end (the default) or idle:DURATION.
	On string
	// Do are the actions, comma-separated.
	Do string
	// Plan is the plan of verify and checkpoint ("": from the session
	// labels, PROJECT/WPn).
	Plan   string
	Repeat bool
}

// AttachPolicy attaches a policy to sessions: actions the sessions daemon
// runs on a trigger, without anyone polling. A notify action runs
// [policies] notify, which from a committed agentproto.toml runs only once
// trusted.
func (e *Env) AttachPolicy(ctx context.Context, o PolicyOptions) (*sessions.Policy, error) {
	if o.On == "" {
		o.On = "turn-end"
	}
	if _, err := sessions.ParseTrigger(o.On); err != nil {
		return nil, err
	}
	acts, err := sessions.ParseActions(o.Do)
	if err != nil {
		return nil, err
	}
	repo, cfg, err := e.repoConfig()
	if err != nil {
		return nil, err
	}
	recs, err := e.Records(ctx, o.Sessions)
	if err != nil {
		return nil, err
	}
	plan, wp := o.Plan, map[string]string{}
	for _, rec := range recs {
		if p, w, ok := strings.Cut(rec.Label, "/"); ok && (plan == "" || p == plan) {
			if plan == "" {
				plan = p
			}
			wp[rec.ID] = w
		}
	}
	for _, a := range acts {
		if a == sessions.ActNotify {
			if err := catalog.RequireNotifyTrust(repo.WorkTree, cfg.Policies.Notify); err != nil {
				return nil, err
			}
		}
	}
	c, err := e.Sessions()
	if err != nil {
		return nil, err
	}
	return c.AttachPolicy(ctx, sessions.PolicyArgs{Sessions: o.Sessions, On: o.On, Do: acts,
		Project: plan, WP: wp, Dir: repo.WorkTree, Notify: cfg.Policies.Notify, Repeat: o.Repeat})
}
