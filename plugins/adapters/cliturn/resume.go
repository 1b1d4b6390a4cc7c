package cliturn

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/agentproto/agentproto/plugins/sdk"
)

// Nothing of a session runs between its turns: once a turn's process has
// exited, the conversation is the CLI's transcript on disk, its id and the
// turn count. So after each turn the session says it can be resumed
// (sdk.Resumable) with a small JSON state, and a new process of the
// adapter started with StartRequest.Resume set to it goes on as this one
// would have: its InitialPrompt runs as the next turn, in the CLI's
// resume form.
//
// The state is {"turn":N,"driver":...}: N the turns run so far, driver
// what the Driver needs (its CLI's session or thread id).

// Resumer is a Driver whose sessions a new process can continue. Only a
// session of a Resumer says it can be resumed.
type Resumer interface {
	// ResumeState is the driver's part of the state, JSON (nil for
	// none), taken once a turn has ended.
	ResumeState() json.RawMessage
	// Restore takes the ResumeState of an earlier process before any
	// turn runs (nil when it had none); an error refuses the state.
	Restore(state json.RawMessage) error
}

// resumeState is what a session says it can be resumed from.
type resumeState struct {
	Turn   int             `json:"turn"`
	Driver json.RawMessage `json:"driver,omitempty"`
}

// ReadState decodes a JSON state into v strictly: no unknown field, no
// trailing data.
func ReadState(state []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(state))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("data after the state")
	}
	return nil
}

// restore takes a Resume state: the turns run so far and the driver's.
func (s *Session) restore(state string) error {
	refuse := func(why string) error {
		shown := state
		if len(shown) > 200 {
			shown = shown[:200] + "…"
		}
		if strconv.CanBackquote(shown) {
			shown = "`" + shown + "`"
		} else {
			shown = strconv.Quote(shown)
		}
		return sdk.Problemf("the resume state %s cannot be continued from: %s", shown, why)
	}
	r, ok := s.Driver.(Resumer)
	if !ok {
		return refuse("this adapter's sessions cannot be resumed")
	}
	var st resumeState
	if err := ReadState([]byte(state), &st); err != nil {
		return refuse(fmt.Sprintf("it is not {\"turn\":N,\"driver\":...}: %v", err))
	}
	if st.Turn < 1 {
		return refuse(fmt.Sprintf("turn %d: a session is resumable only after a turn", st.Turn))
	}
	if bytes.Equal(bytes.TrimSpace(st.Driver), []byte("null")) {
		st.Driver = nil
	}
	if err := r.Restore(st.Driver); err != nil {
		return refuse(err.Error())
	}
	s.mu.Lock()
	s.turn = st.Turn
	s.mu.Unlock()
	return nil
}

// announce says the session can be resumed as it is after turn n, unless
// it has ended or another turn has started since. It holds s.mu, so a
// turn that starts now says so after it.
func (s *Session) announce(n int) {
	r, ok := s.Driver.(Resumer)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.exited || s.done != nil || s.turn != n {
		return
	}
	b, err := json.Marshal(resumeState{Turn: n, Driver: r.ResumeState()})
	if err == nil {
		err = sdk.Resumable(s.Out, string(b))
	}
	if err != nil {
		fmt.Fprintf(sdk.Stderr, "the session cannot be resumed by a new process: %v\n", err)
	}
}
