package config

import (
	"strings"
	"testing"
	"time"
)

// The defaults are bounded; a bad action, retry count or duration is
// refused naming its key.
func TestReactions(t *testing.T) {
	d := Default().Reactions
	if d.CIFailed.Action != SendToOwner || d.CIFailed.Retries != 2 || d.ApprovedAndGreen.Action != Notify || d.Interval.Duration != time.Minute {
		t.Fatalf("defaults: %+v", d)
	}
	cfg, err := Parse([]byte("[reactions.comment]\naction = \"escalate\"\n[reactions.ci-failed]\nretries = 3\nescalate-after = \"90m\"\n"), FileName)
	if err != nil || cfg.Reactions.Comment.Action != Escalate || cfg.Reactions.CIFailed.Retries != 3 ||
		cfg.Reactions.CIFailed.EscalateAfter.Duration != 90*time.Minute || cfg.Reactions.CIFailed.Action != SendToOwner {
		t.Fatalf("parse: %+v %v", cfg.Reactions, err)
	}
	for text, want := range map[string]string{
		"[reactions.comment]\naction = \"merge\"\n":                    "reactions.comment.action",
		"[reactions.approved-and-green]\naction = \"send-to-owner\"\n": "nothing to send",
		"[reactions.ci-failed]\nretries = -1\n":                        "reactions.ci-failed.retries",
		"[reactions.ci-failed]\nescalate-after = 5\n":                  "escalate-after",
		"[reactions]\ninterval = \"10ms\"\n":                           "reactions.interval",
		"[reactions.typo]\naction = \"notify\"\n":                      "typo",
	} {
		if _, err := Parse([]byte(text), FileName); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v; want an error naming %s", text, err, want)
		}
	}
}
