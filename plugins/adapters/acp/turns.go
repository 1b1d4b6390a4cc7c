package acp

// A session's turns: one session/prompt at a time, run in the background,
// cancelled with session/cancel, and how each ended reported.

import (
	"context"
	"fmt"
	"strings"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/agentproto/agentproto/plugins/sdk"
)

// Prompt starts a turn; with interrupt it first cancels the running one.
func (s *Session) Prompt(ctx context.Context, text string, interrupt bool) error {
	s.mu.Lock()
	done, ended := s.turnDone, s.ended
	s.mu.Unlock()
	switch {
	case ended:
		return sdk.Problemf("the session has ended")
	case done != nil && !interrupt:
		return sdk.Problemf("a turn is running; send the prompt with interrupt, or wait for the turn to end")
	case done != nil:
		if err := s.cancel(ctx, done); err != nil {
			return err
		}
	}
	if strings.TrimSpace(text) == "" {
		return nil
	}
	s.startTurn(text)
	return nil
}

// cancel sends session/cancel and waits for the turn to end.
func (s *Session) cancel(ctx context.Context, done chan struct{}) error {
	s.mu.Lock()
	s.interrupted = true
	s.mu.Unlock()
	select {
	case <-s.ready: // open: the turn is with the agent
	case <-done: // ended before the session was open
		return nil
	}
	// session/cancel is a notification: one that reaches the agent before
	// it has started the turn is lost, so it is sent again until the turn
	// ends.
	deadline := time.After(cancelGrace)
	for {
		if err := s.conn.Cancel(ctx, acpsdk.CancelNotification{SessionId: s.id}); err != nil {
			return fmt.Errorf("session/cancel: %w", err)
		}
		select {
		case <-done:
			return nil
		case <-time.After(cancelRepeat):
		case <-deadline:
			return sdk.Problemf("the agent did not end the turn within %s of session/cancel", cancelGrace)
		}
	}
}

// startTurn runs one session/prompt in the background.
func (s *Session) startTurn(text string) {
	done := make(chan struct{})
	s.mu.Lock()
	s.turnDone, s.interrupted = done, false
	s.mu.Unlock()
	s.client.newTurn()
	s.out.TurnStarted()
	go func() {
		<-s.ready
		s.mu.Lock()
		settle := time.Until(s.settleUntil)
		s.mu.Unlock()
		if settle > 0 {
			time.Sleep(settle)
		}
		s.mu.Lock()
		interrupted := s.interrupted
		s.mu.Unlock()
		switch {
		case s.openErr != nil:
			s.reportOpen()
		case interrupted:
			warn(s.out, WarnInterrupted, "the turn was interrupted before it started")
		default:
			// The turn's cost starts once the session is open: what a
			// session/load replays is its past.
			s.client.cost.begin()
			resp, err := s.conn.Prompt(context.Background(), acpsdk.PromptRequest{SessionId: s.id, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock(text)}})
			s.client.endTurn()
			s.mu.Lock()
			interrupted = s.interrupted
			s.mu.Unlock()
			s.endTurn(resp, err, interrupted)
		}
		s.mu.Lock()
		s.turnDone = nil
		s.mu.Unlock()
		s.out.TurnEnded()
		close(done)
	}()
}

// endTurn reports how a turn ended: a cancelled turn is a warning, an
// error of the agent a typed fault when its words say which.
func (s *Session) endTurn(resp acpsdk.PromptResponse, err error, interrupted bool) {
	usd, hasCost := s.client.cost.end()
	reportUsage(s.out, resp, usd, hasCost)
	switch {
	case interrupted && (err != nil || resp.StopReason == acpsdk.StopReasonCancelled):
		warn(s.out, WarnInterrupted, "the turn was interrupted (session/cancel)")
	case err != nil:
		select {
		case <-s.exited:
			return // agentGone reports it
		default:
		}
		s.mu.Lock()
		s.settleUntil = time.Now().Add(failSettle)
		s.mu.Unlock()
		text := errText(err)
		s.out.Error(text, classify(text))
	case resp.StopReason == acpsdk.StopReasonCancelled && s.client.deniedInTurn():
		// Agents end the turn when a tool is refused (claude-code-acp,
		// codex-acp): the permission_denied warning already says why.
	case resp.StopReason == acpsdk.StopReasonCancelled:
		s.out.Error("the agent cancelled the turn", "")
	case resp.StopReason == acpsdk.StopReasonRefusal:
		s.out.Error("the agent refused to continue (stop reason refusal)", "")
	case resp.StopReason == acpsdk.StopReasonMaxTokens || resp.StopReason == acpsdk.StopReasonMaxTurnRequests:
		s.out.Error("the turn stopped early: "+string(resp.StopReason), "")
	}
}
