package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// openaiErrors are the error bodies of the OpenAI API by status
// (platform.openai.com, "Error codes"): type and code, then message.
var openaiErrors = map[int][3]string{
	400: {"invalid_request_error", "", "Invalid request."},
	401: {"invalid_request_error", "invalid_api_key", "Incorrect API key provided: %s. You can find your API key at https://platform.openai.com/account/api-keys."},
	402: {"insufficient_quota", "insufficient_quota", "You exceeded your current quota, please check your plan and billing details."},
	403: {"invalid_request_error", "unsupported_country_region_territory", "Country, region, or territory not supported"},
	404: {"invalid_request_error", "model_not_found", "The model `%s` does not exist or you do not have access to it."},
	429: {"requests", "rate_limit_exceeded", "Rate limit reached for requests. Please try again in 1s."},
	500: {"server_error", "", "The server had an error while processing your request. Sorry about that!"},
	503: {"server_error", "", "The engine is currently overloaded, please try again later."},
	529: {"server_error", "", "The engine is currently overloaded, please try again later."},
}

func openaiError(w http.ResponseWriter, status int, msg, retryAfter, arg string) {
	e, ok := openaiErrors[status]
	if !ok {
		e = [3]string{"server_error", "", "error"}
	}
	if msg == "" {
		msg = e[2]
		if strings.Contains(msg, "%s") {
			msg = fmt.Sprintf(msg, arg)
		}
	}
	var code any
	if e[1] != "" {
		code = e[1]
	}
	w.Header().Set("x-request-id", newID("req"))
	if retryAfter != "" {
		w.Header().Set("retry-after", retryAfter)
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": e[0], "param": nil, "code": code}})
}

// masked is how OpenAI quotes a wrong key.
func masked(k string) string {
	if len(k) <= 8 {
		return "****"
	}
	return k[:3] + "*****" + k[len(k)-4:]
}

func (s *Server) openai(w http.ResponseWriter, r *http.Request, req *Request) {
	key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !s.keyIs(key) {
		req.Answered = "401"
		openaiError(w, 401, "", "", masked(key))
		return
	}
	if !s.modelExists(req.Model) {
		req.Answered = "404"
		openaiError(w, 404, "", "", req.Model)
		return
	}
	var rep Reply
	if id, ok := s.stillRunning(req.Body); ok {
		// A model waits for the command it started: it polls the session
		// codex yielded, with nothing to type, for as long as codex lets it.
		rep, req.Answered = Call("write_stdin", map[string]any{"session_id": id, "chars": "", "yield_time_ms": 30000}), "poll"
	} else {
		var scripted bool
		rep, scripted = s.next()
		req.Answered = "default"
		if scripted {
			req.Answered = "reply"
		}
	}
	if rep.Status != 0 {
		req.Answered = strconv.Itoa(rep.Status)
		openaiError(w, rep.Status, rep.Message, rep.RetryAfter, req.Model)
		return
	}
	respID := newID("resp")
	resp := map[string]any{"id": respID, "object": "response", "created_at": time.Now().Unix(), "status": "in_progress",
		"model": req.Model, "output": []any{}}
	e := newSSE(w, r, rep.Delay)
	seq := 0
	ev := func(name string, data map[string]any) bool {
		data["type"] = name
		data["sequence_number"] = seq
		seq++
		return e.event(name, data)
	}
	ev("response.created", map[string]any{"response": resp})
	ev("response.in_progress", map[string]any{"response": resp})
	var output []any
	if rep.Text != "" {
		id := newID("msg")
		ev("response.output_item.added", map[string]any{"output_index": len(output),
			"item": map[string]any{"id": id, "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}}})
		ev("response.content_part.added", map[string]any{"item_id": id, "output_index": len(output), "content_index": 0,
			"part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
		for _, word := range words(rep.Text) {
			if !e.pause() {
				return
			}
			if !ev("response.output_text.delta", map[string]any{"item_id": id, "output_index": len(output), "content_index": 0, "delta": word}) {
				return
			}
			if rep.Cut {
				cut()
			}
		}
		part := map[string]any{"type": "output_text", "text": rep.Text, "annotations": []any{}}
		ev("response.output_text.done", map[string]any{"item_id": id, "output_index": len(output), "content_index": 0, "text": rep.Text})
		ev("response.content_part.done", map[string]any{"item_id": id, "output_index": len(output), "content_index": 0, "part": part})
		item := map[string]any{"id": id, "type": "message", "status": "completed", "role": "assistant", "content": []any{part}}
		ev("response.output_item.done", map[string]any{"output_index": len(output), "item": item})
		output = append(output, item)
	}
	if rep.Tool != nil && rep.Tool.Custom {
		output = append(output, customToolCall(ev, len(output), rep.Tool))
	} else if rep.Tool != nil {
		id, args := newID("fc"), marshal(rep.Tool.Input)
		item := map[string]any{"id": id, "type": "function_call", "status": "in_progress", "call_id": newID("call"), "name": rep.Tool.Name, "arguments": ""}
		ev("response.output_item.added", map[string]any{"output_index": len(output), "item": item})
		e.pause()
		ev("response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": len(output), "delta": args})
		ev("response.function_call_arguments.done", map[string]any{"item_id": id, "output_index": len(output), "arguments": args})
		done := map[string]any{}
		for k, v := range item {
			done[k] = v
		}
		done["status"], done["arguments"] = "completed", args
		ev("response.output_item.done", map[string]any{"output_index": len(output), "item": done})
		output = append(output, done)
	}
	resp["status"], resp["output"] = "completed", output
	u := rep.usage()
	req.Usage = u
	resp["usage"] = openaiUsage(u)
	ev("response.completed", map[string]any{"response": resp})
}

// runningSession is how codex tells the model that a command outlived the
// tool's wait (exec_command's yield_time_ms) and runs on.
var runningSession = regexp.MustCompile(`Process running with session ID ([0-9]+)`)

// stillRunning finds, unless the server is Impatient, the session of a
// command the last tool output of a Responses request says still runs.
func (s *Server) stillRunning(body []byte) (int, bool) {
	s.mu.Lock()
	impatient := s.Impatient
	s.mu.Unlock()
	if impatient {
		return 0, false
	}
	var b struct {
		Input []struct {
			Type   string          `json:"type"`
			Output json.RawMessage `json:"output"`
		} `json:"input"`
	}
	if json.Unmarshal(body, &b) != nil || len(b.Input) == 0 {
		return 0, false
	}
	last := b.Input[len(b.Input)-1]
	if last.Type != "function_call_output" {
		return 0, false
	}
	m := runningSession.FindSubmatch(last.Output)
	if m == nil {
		return 0, false
	}
	id, err := strconv.Atoi(string(m[1]))
	return id, err == nil
}

// openaiPrompt is the text of the last user message of a Responses input.
func openaiPrompt(input json.RawMessage) string {
	var s string
	if json.Unmarshal(input, &s) == nil {
		return s
	}
	var items []struct {
		Type    string          `json:"type"`
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	json.Unmarshal(input, &items)
	for i := len(items) - 1; i >= 0; i-- {
		if items[i].Role != "user" {
			continue
		}
		if json.Unmarshal(items[i].Content, &s) == nil {
			return s
		}
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		json.Unmarshal(items[i].Content, &parts)
		for j := len(parts) - 1; j >= 0; j-- {
			if parts[j].Type == "input_text" {
				return parts[j].Text
			}
		}
	}
	return ""
}

// CodexConfig is a $CODEX_HOME/config.toml that sends codex to the
// server with the key in the environment variable keyEnv. retries bounds
// codex's reconnects so failing tests end in seconds.
func (s *Server) CodexConfig(model, keyEnv string, retries int) string {
	return fmt.Sprintf(`model = %q
model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = "%s/v1"
env_key = %q
wire_api = "responses"
request_max_retries = %d
stream_max_retries = %d
`, model, s.URL, keyEnv, retries, retries)
}
