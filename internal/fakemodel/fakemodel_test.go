package fakemodel

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"testing"
)

func post(t *testing.T, url, key, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("x-api-key", key)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// dataLines returns the data of each event of an SSE body, in order.
func events(body string) []string {
	var names []string
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		if n, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
			names = append(names, n)
		}
	}
	return names
}

func TestAnthropicStreamsTextAndToolUse(t *testing.T) {
	s := New(t)
	s.Script(Reply{Text: "hello there", Tool: &Tool{Name: "Write", Input: map[string]string{"file_path": "a.txt", "content": "x"}}})
	resp, body := post(t, s.URL+"/v1/messages", Key, `{"model":"claude-test","stream":true,"messages":[{"role":"user","content":[{"type":"text","text":"- a dash prompt"}]}]}`)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d %s", resp.StatusCode, body)
	}
	got := strings.Join(events(body), " ")
	want := "message_start ping content_block_start content_block_delta content_block_delta content_block_stop content_block_start content_block_delta content_block_delta content_block_stop message_delta message_stop"
	if got != want {
		t.Fatalf("events:\n%s\nwant\n%s", got, want)
	}
	for _, w := range []string{`"text":" there"`, `"type":"input_json_delta"`, `"stop_reason":"tool_use"`, `"name":"Write"`} {
		if !strings.Contains(body, w) {
			t.Errorf("body lacks %s", w)
		}
	}
	r := s.Requests()
	if len(r) != 1 || r[0].Prompt != "- a dash prompt" || r[0].Model != "claude-test" || r[0].Header.Get("x-api-key") != Key {
		t.Fatalf("recorded %+v", r)
	}
}

func TestErrorsAreTheProvidersOwn(t *testing.T) {
	s := New(t)
	s.SetModels("known")
	resp, body := post(t, s.URL+"/v1/messages", "sk-wrong", `{"model":"known"}`)
	if resp.StatusCode != 401 || !strings.Contains(body, `"type":"authentication_error"`) || resp.Header.Get("request-id") == "" {
		t.Fatalf("bad key: %d %s", resp.StatusCode, body)
	}
	resp, body = post(t, s.URL+"/v1/responses", Key, `{"model":"gpt-nope","stream":true}`)
	if resp.StatusCode != 404 || !strings.Contains(body, `"code":"model_not_found"`) || !strings.Contains(body, "The model `gpt-nope` does not exist") {
		t.Fatalf("bad model: %d %s", resp.StatusCode, body)
	}
	s.Script(Reply{Status: 429, RetryAfter: "2"}, Fail(529))
	resp, body = post(t, s.URL+"/v1/messages", Key, `{"model":"known","stream":true}`)
	if resp.StatusCode != 429 || resp.Header.Get("retry-after") != "2" || !strings.Contains(body, "rate_limit_error") {
		t.Fatalf("429: %d %s", resp.StatusCode, body)
	}
	resp, body = post(t, s.URL+"/v1/messages", Key, `{"model":"known","stream":true}`)
	if resp.StatusCode != 529 || !strings.Contains(body, "overloaded_error") {
		t.Fatalf("529: %d %s", resp.StatusCode, body)
	}
}

func TestResponsesStreamAndCut(t *testing.T) {
	s := New(t)
	s.Script(Call("exec_command", map[string]string{"cmd": "echo hi > f"}), Reply{Text: "one two three", Cut: true})
	_, body := post(t, s.URL+"/v1/responses", Key, `{"model":"m","stream":true,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]}]}`)
	got := strings.Join(events(body), " ")
	if got != "response.created response.in_progress response.output_item.added response.function_call_arguments.delta response.function_call_arguments.done response.output_item.done response.completed" {
		t.Fatalf("events: %s", got)
	}
	if !strings.Contains(body, `"arguments":"{\"cmd\":\"echo hi > f\"}"`) || !strings.Contains(body, `"type":"function_call"`) {
		t.Fatalf("body: %s", body)
	}
	req, _ := http.NewRequest("POST", s.URL+"/v1/responses", strings.NewReader(`{"model":"m","stream":true}`))
	req.Header.Set("Authorization", "Bearer "+Key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	if err == nil || strings.Contains(string(b), "response.completed") {
		t.Fatalf("a cut stream read whole: %v\n%s", err, b)
	}
	if r := s.Requests(); r[0].Prompt != "go" || r[0].Answered != "reply" {
		t.Fatalf("recorded %+v", r[0])
	}
}

// A tool output saying codex's command still runs is answered as a model
// does, by polling its session with write_stdin, and the script waits;
// an Impatient server answers it with the next reply.
func TestOpenAIPollsACommandStillRunning(t *testing.T) {
	running := `{"model":"gpt-test","stream":true,"input":[{"role":"user","content":"go"},` +
		`{"type":"function_call_output","call_id":"c1","output":"Chunk ID: x\nWall time: 0.5 seconds\nProcess running with session ID 4242\nOutput:\n"}]}`
	s := New(t)
	s.Script(Text("done"))
	_, body := post(t, s.URL+"/v1/responses", Key, running)
	if !strings.Contains(body, `"name":"write_stdin"`) || !strings.Contains(body, `\"session_id\":4242`) || s.Pending() != 1 {
		t.Fatalf("the poll (pending %d):\n%s", s.Pending(), body)
	}
	if r := s.Requests(); r[0].Answered != "poll" {
		t.Fatalf("answered %q", r[0].Answered)
	}
	s.Impatient = true
	_, body = post(t, s.URL+"/v1/responses", Key, running)
	if strings.Contains(body, "write_stdin") || !strings.Contains(body, `"delta":"done"`) || s.Pending() != 0 {
		t.Fatalf("the impatient answer (pending %d):\n%s", s.Pending(), body)
	}
}
