package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"
)

var ids atomic.Int64

func newID(prefix string) string { return fmt.Sprintf("%s_%016d", prefix, ids.Add(1)) }

// anthropicErrors are the error types of the Messages API by status
// (docs.anthropic.com, "Errors").
var anthropicErrors = map[int][2]string{
	400: {"invalid_request_error", "There was an issue with the format or content of your request."},
	401: {"authentication_error", "invalid x-api-key"},
	402: {"billing_error", "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."},
	403: {"permission_error", "Your API key does not have permission to use the specified resource."},
	404: {"not_found_error", "model: %s"},
	413: {"request_too_large", "Request exceeds the maximum allowed number of bytes."},
	429: {"rate_limit_error", "This request would exceed the rate limit for your organization. Please try again later."},
	500: {"api_error", "An unexpected error has occurred internal to Anthropic's systems."},
	503: {"api_error", "Service unavailable."},
	529: {"overloaded_error", "Overloaded"},
}

func anthropicError(w http.ResponseWriter, status int, msg, retryAfter, model string) {
	e, ok := anthropicErrors[status]
	if !ok {
		e = [2]string{"api_error", "error"}
	}
	if msg == "" {
		msg = e[1]
		if status == 404 {
			msg = fmt.Sprintf(msg, model)
		}
	}
	id := newID("req")
	w.Header().Set("request-id", id)
	if retryAfter != "" {
		w.Header().Set("retry-after", retryAfter)
	}
	writeJSON(w, status, map[string]any{"type": "error", "error": map[string]any{"type": e[0], "message": msg}, "request_id": id})
}

// anthropicAuth answers 401 when the key is wrong; true when it is right.
func (s *Server) anthropicAuth(w http.ResponseWriter, r *http.Request, req *Request) bool {
	key := r.Header.Get("x-api-key")
	if key == "" {
		if a := r.Header.Get("Authorization"); len(a) > 7 && a[:7] == "Bearer " {
			key = a[7:]
		}
	}
	if !s.keyIs(key) {
		req.Answered = "401"
		anthropicError(w, 401, "", "", "")
		return false
	}
	return true
}

func (s *Server) anthropic(w http.ResponseWriter, r *http.Request, req *Request) {
	if !s.anthropicAuth(w, r, req) {
		return
	}
	if !s.modelExists(req.Model) {
		req.Answered = "404"
		anthropicError(w, 404, "", "", req.Model)
		return
	}
	rep, scripted := s.next()
	req.Answered = "default"
	if scripted {
		req.Answered = "reply"
	}
	if rep.Status != 0 {
		req.Answered = strconv.Itoa(rep.Status)
		anthropicError(w, rep.Status, rep.Message, rep.RetryAfter, req.Model)
		return
	}
	msgID := newID("msg")
	stop := "end_turn"
	if rep.Tool != nil {
		stop = "tool_use"
	}
	u := rep.usage()
	req.Usage = u
	usage := anthropicUsage(u, u.Output)
	if !req.Stream {
		var content []any
		if rep.Text != "" {
			content = append(content, map[string]any{"type": "text", "text": rep.Text})
		}
		if rep.Tool != nil {
			content = append(content, map[string]any{"type": "tool_use", "id": newID("toolu"), "name": rep.Tool.Name, "input": rep.Tool.Input})
		}
		writeJSON(w, 200, map[string]any{"id": msgID, "type": "message", "role": "assistant", "model": req.Model,
			"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	e := newSSE(w, r, rep.Delay)
	// message_start counts the output so far (one token), message_delta
	// the whole of it, as the API documents.
	e.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": msgID, "type": "message", "role": "assistant",
		"model": req.Model, "content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": anthropicUsage(u, min(1, u.Output))}})
	e.event("ping", map[string]any{"type": "ping"})
	index := 0
	if rep.Text != "" {
		e.event("content_block_start", map[string]any{"type": "content_block_start", "index": index, "content_block": map[string]any{"type": "text", "text": ""}})
		for _, word := range words(rep.Text) {
			if !e.pause() {
				return
			}
			if !e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": index, "delta": map[string]any{"type": "text_delta", "text": word}}) {
				return
			}
			if rep.Cut {
				cut()
			}
		}
		e.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
		index++
	}
	if rep.Tool != nil {
		e.event("content_block_start", map[string]any{"type": "content_block_start", "index": index,
			"content_block": map[string]any{"type": "tool_use", "id": newID("toolu"), "name": rep.Tool.Name, "input": map[string]any{}}})
		args := marshal(rep.Tool.Input)
		half := len(args) / 2
		for _, part := range []string{args[:half], args[half:]} {
			e.pause()
			e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": index, "delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
		}
		e.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
	}
	e.event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": usage})
	e.event("message_stop", map[string]any{"type": "message_stop"})
}

// anthropicPrompt is the last text block of the last user message that
// has one (tool results carry none).
func anthropicPrompt(msgs []json.RawMessage) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		var m struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(msgs[i], &m) != nil || m.Role != "user" {
			continue
		}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			return s
		}
		var blocks []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		json.Unmarshal(m.Content, &blocks)
		for j := len(blocks) - 1; j >= 0; j-- {
			if blocks[j].Type == "text" {
				return blocks[j].Text
			}
		}
	}
	return ""
}

// ClaudeSettings is a $HOME/.claude/settings.json sending claude to the
// server, with telemetry, error reports, updates and other background
// traffic off, and at most retries retries of a failed request.
func (s *Server) ClaudeSettings(retries int) string {
	return fmt.Sprintf(`{"env": {"ANTHROPIC_BASE_URL": %q, "DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1",
  "DISABLE_ERROR_REPORTING": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "CLAUDE_CODE_MAX_RETRIES": "%d"}}
`, s.URL, retries)
}
