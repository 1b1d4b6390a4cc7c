package config

import (
	"fmt"
	"time"
)

// The reactions to what happens on a pull request agentproto opened.
const (
	// Triggers.
	CIFailed         = "ci-failed"
	ChangesRequested = "changes-requested"
	Commented        = "comment"
	ApprovedAndGreen = "approved-and-green"
	// Actions.
	SendToOwner = "send-to-owner"
	Escalate    = "escalate"
	Notify      = "notify"
	Ignore      = "ignore"
)

// Reactions configures `pr watch`: [reactions] and one table per trigger.
type Reactions struct {
	// Interval is the time between two polls of the foreground loop.
	Interval Duration `toml:"interval" json:"interval"`
	// TurnTimeout bounds an owner's turn on one reaction.
	TurnTimeout      Duration `toml:"turn_timeout" json:"turn_timeout"`
	CIFailed         Reaction `toml:"ci-failed" json:"ci-failed"`
	ChangesRequested Reaction `toml:"changes-requested" json:"changes-requested"`
	Comment          Reaction `toml:"comment" json:"comment"`
	ApprovedAndGreen Reaction `toml:"approved-and-green" json:"approved-and-green"`
}

// Reaction is what one trigger does.
type Reaction struct {
	// Action: send-to-owner, escalate, notify or ignore.
	Action string `toml:"action" json:"action"`
	// Retries bounds the turns sent to the owner for one item (a check by
	// name, a comment thread) before it escalates.
	Retries int `toml:"retries" json:"retries"`
	// EscalateAfter escalates an item still unresolved this long after it
	// was first seen ("0s": only when the retries run out).
	EscalateAfter Duration `toml:"escalate-after" json:"escalate-after"`
}

// For returns the reaction of trigger.
func (r Reactions) For(trigger string) Reaction {
	switch trigger {
	case CIFailed:
		return r.CIFailed
	case ChangesRequested:
		return r.ChangesRequested
	case Commented:
		return r.Comment
	case ApprovedAndGreen:
		return r.ApprovedAndGreen
	}
	return Reaction{Action: Escalate}
}

// defaultReactions are safe: a bounded number of turns to the owner, then
// a person decides; approval only ever notifies (nothing is merged).
func defaultReactions() Reactions {
	return Reactions{
		Interval:         minutes(1),
		TurnTimeout:      minutes(30),
		CIFailed:         Reaction{Action: SendToOwner, Retries: 2, EscalateAfter: Duration{2 * time.Hour}},
		ChangesRequested: Reaction{Action: SendToOwner, Retries: 1, EscalateAfter: Duration{24 * time.Hour}},
		Comment:          Reaction{Action: SendToOwner, Retries: 1, EscalateAfter: Duration{24 * time.Hour}},
		ApprovedAndGreen: Reaction{Action: Notify},
	}
}

func (r Reactions) validate() error {
	if r.Interval.Duration < time.Second {
		return BadValue("must be at least \"1s\" (GitHub asks pollers to be gentle)", "reactions", "interval")
	}
	if r.TurnTimeout.Duration <= 0 {
		return BadValue("must be longer than zero, such as \"30m\"", "reactions", "turn_timeout")
	}
	for _, t := range []string{CIFailed, ChangesRequested, Commented, ApprovedAndGreen} {
		x := r.For(t)
		switch x.Action {
		case SendToOwner, Escalate, Notify, Ignore:
		default:
			return BadValue(fmt.Sprintf("%q is not send-to-owner, escalate, notify or ignore", x.Action), "reactions", t, "action")
		}
		if t == ApprovedAndGreen && x.Action == SendToOwner {
			return BadValue("an approved, green pull request has nothing to send: notify, escalate or ignore", "reactions", t, "action")
		}
		if x.Retries < 0 || x.Retries > 10 {
			return BadValue(fmt.Sprintf("%d: want 0 to 10 turns before it escalates", x.Retries), "reactions", t, "retries")
		}
		if x.EscalateAfter.Duration < 0 {
			return BadValue("must be \"0s\" (only when the retries run out) or a positive duration", "reactions", t, "escalate-after")
		}
	}
	return nil
}
