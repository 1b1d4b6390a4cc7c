package app

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/agentproto/agentproto/sessions"
)

// followPoll is how often a followed session's output is read again:
// fast enough to feel live, slow enough to cost nothing.
const followPoll = 100 * time.Millisecond

// FollowOutput passes to emit what session id writes from byte offset
// on, until the session has ended and written nothing more, or ctx is
// done. poll, when set, runs before each read (the CLI flushes there).
func (e *Env) FollowOutput(ctx context.Context, id string, offset int64, emit func([]byte), poll func()) error {
	st, err := e.store()
	if err != nil {
		return err
	}
	file, err := os.Open(st.OutputPath(id))
	if err != nil {
		return err
	}
	defer file.Close()
	if _, err := file.Seek(offset, io.SeekStart); err != nil {
		return err
	}
	for {
		if poll != nil {
			poll()
		}
		r, err := st.Load(id)
		more, _ := io.ReadAll(file)
		emit(more)
		if err != nil || (sessions.Terminal(r.State) && len(more) == 0) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(followPoll):
		}
	}
}
