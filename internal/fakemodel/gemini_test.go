package fakemodel

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

func geminiPost(t *testing.T, url, key, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("x-goog-api-key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestGeminiStreamsTextAndFunctionCall(t *testing.T) {
	s := New(t)
	s.Script(Reply{Text: "hello there", Tool: &Tool{Name: "write_file", Input: map[string]string{"file_path": "/w/a.txt", "content": "x"}}})
	url := s.URL + "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
	resp, body := geminiPost(t, url, Key, `{"contents":[{"role":"user","parts":[{"text":"- a dash prompt"}]}]}`)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d %s", resp.StatusCode, body)
	}
	chunks := strings.Split(strings.TrimSpace(body), "\r\n\r\n")
	if len(chunks) != 3 || !strings.HasPrefix(chunks[0], `data: {"candidates":[{"content":{"parts":[{"text":"hello"}]`) {
		t.Fatalf("chunks %q", chunks)
	}
	if !strings.Contains(chunks[2], `"functionCall":{"args":{"content":"x","file_path":"/w/a.txt"},"name":"write_file"}`) || !strings.Contains(chunks[2], `"finishReason":"STOP"`) {
		t.Fatalf("last chunk %s", chunks[2])
	}
	// A side request does not use the script.
	s.Script(Text("scripted"))
	if _, side := geminiPost(t, s.URL+"/v1beta/models/gemini-2.5-flash:generateContent", Key, `{"contents":[]}`); !strings.Contains(side, "next_speaker") || s.Pending() != 1 {
		t.Fatalf("side request: %s (pending %d)", side, s.Pending())
	}
	r := s.Requests()
	if r[0].API != "gemini" || r[0].Model != "gemini-2.5-pro" || r[0].Prompt != "- a dash prompt" || r[0].Answered != "reply" {
		t.Fatalf("recorded %+v", r[0])
	}
}

func TestGeminiErrorsAreGooglesOwn(t *testing.T) {
	s := New(t)
	url := s.URL + "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
	if resp, body := geminiPost(t, url, "wrong", `{}`); resp.StatusCode != 400 || !strings.Contains(body, `"reason":"API_KEY_INVALID"`) {
		t.Fatalf("bad key: %d %s", resp.StatusCode, body)
	}
	s.SetModels("gemini-2.5-flash")
	if resp, body := geminiPost(t, url, Key, `{}`); resp.StatusCode != 404 || !strings.Contains(body, "models/gemini-2.5-pro is not found") {
		t.Fatalf("bad model: %d %s", resp.StatusCode, body)
	}
	s.SetModels("gemini-2.5-pro")
	s.Script(Fail(429), Fail(503))
	for _, want := range []struct {
		status int
		word   string
	}{{429, "RESOURCE_EXHAUSTED"}, {503, "UNAVAILABLE"}} {
		resp, body := geminiPost(t, url, Key, `{}`)
		if resp.StatusCode != want.status || !strings.Contains(body, `"status":"`+want.word+`"`) {
			t.Fatalf("%d %s, want %d %s", resp.StatusCode, body, want.status, want.word)
		}
	}
}
