package sdk

import (
	"fmt"

	"github.com/agentproto/agentproto/plugins/internal/proto"
)

// ResumeTaker is the side of an Emitter that takes a session's resume
// state. The Emitter Serve gives an adapter has it; an Emitter of a test
// may have it too.
type ResumeTaker interface {
	Resumable(state string) error
}

// Resumable tells the host that, as of now, the session can be ended and
// continued by a new process of the adapter: StartRequest.Resume will
// carry state. An agent that runs a process per turn (claude -p, codex
// exec) says so after each turn with its conversation's id. The host may
// then end the idle adapter, so settled sessions hold no memory, and
// start it again on the next prompt. Say it only when nothing of the
// session runs until the next prompt: the host ends whatever does.
// A turn's start voids the state; a later call replaces an earlier one.
// An Emitter without ResumeTaker ignores it.
func Resumable(out Emitter, state string) error {
	if len(state) > MaxResumeBytes {
		return fmt.Errorf("a resume state of %d bytes is over the %d a session keeps", len(state), MaxResumeBytes)
	}
	if r, ok := out.(ResumeTaker); ok {
		return r.Resumable(state)
	}
	return nil
}

// Resumable sends the resume state. A session that never declared
// session_resume cannot be resumed, so the state is refused.
func (e emitter) Resumable(state string) error {
	if !e.resumes {
		return fmt.Errorf("a session of an adapter without %s cannot be resumed", CapResume)
	}
	e.log.add(&proto.Event{Kind: proto.EventKind_EVENT_KIND_RESUMABLE, Text: state})
	return nil
}
