package app

import (
	"context"

	"github.com/agentproto/agentproto/lessons"
)

// Lessons lists the recorded lessons, newest first; with tags, only
// those carrying one of them.
func (e *Env) Lessons(ctx context.Context, tags []string) ([]lessons.Lesson, error) {
	l, err := e.ReadLedger()
	if err != nil {
		return nil, err
	}
	out, err := lessons.List(l, tags, false, 0)
	if out == nil && err == nil {
		out = []lessons.Lesson{}
	}
	return out, err
}
