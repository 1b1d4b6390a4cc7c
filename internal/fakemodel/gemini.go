package fakemodel

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// geminiErrors are the Gemini API's answers by status (ai.google.dev,
// "Troubleshooting": the canonical status and the message it documents).
var geminiErrors = map[int][2]string{
	400: {"INVALID_ARGUMENT", "API key not valid. Please pass a valid API key."},
	403: {"PERMISSION_DENIED", "Your API key doesn't have the required permissions."},
	404: {"NOT_FOUND", "models/%s is not found for API version v1beta, or is not supported for generateContent."},
	429: {"RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota)."},
	500: {"INTERNAL", "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting"},
	503: {"UNAVAILABLE", "The model is overloaded. Please try again later."},
	529: {"UNAVAILABLE", "The model is overloaded. Please try again later."},
}

func geminiError(w http.ResponseWriter, status int, msg, retryAfter, model string) {
	e, ok := geminiErrors[status]
	if !ok {
		e = [2]string{"UNKNOWN", "error"}
	}
	if msg == "" {
		msg = strings.Replace(e[1], "%s", model, 1)
	}
	if retryAfter != "" {
		w.Header().Set("retry-after", retryAfter)
	}
	body := map[string]any{"code": status, "message": msg, "status": e[0]}
	if status == 400 {
		body["details"] = []any{map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID", "domain": "googleapis.com"}}
	}
	writeJSON(w, status, map[string]any{"error": body})
}

// geminiBody is the part of a generateContent request the server reads.
type geminiBody struct {
	Contents []struct {
		Role  string `json:"role"`
		Parts []struct {
			Text string `json:"text"`
		} `json:"parts"`
	} `json:"contents"`
}

// geminiPrompt is the text of the last user content that has text
// (function responses carry none).
func geminiPrompt(raw []byte) string {
	var b geminiBody
	json.Unmarshal(raw, &b)
	for i := len(b.Contents) - 1; i >= 0; i-- {
		c := b.Contents[i]
		if c.Role != "user" {
			continue
		}
		var text []string
		for _, p := range c.Parts {
			if p.Text != "" {
				text = append(text, p.Text)
			}
		}
		if len(text) > 0 {
			return strings.Join(text, "\n")
		}
	}
	return ""
}

// gemini answers POST /v1beta/models/MODEL:streamGenerateContent?alt=sse
// (a turn, from the script), :generateContent (Gemini CLI's side
// requests — loop and next-speaker checks — answered without using the
// script) and :countTokens. The key is the x-goog-api-key header or the
// key parameter.
func (s *Server) gemini(w http.ResponseWriter, r *http.Request, req *Request) {
	model, method := geminiModel(r.URL.Path), geminiMethod(r.URL.Path)
	key := r.Header.Get("x-goog-api-key")
	if key == "" {
		key = r.URL.Query().Get("key")
	}
	if !s.keyIs(key) {
		req.Answered = "400"
		geminiError(w, 400, "", "", model)
		return
	}
	if !s.modelExists(model) {
		req.Answered = "404"
		geminiError(w, 404, "", "", model)
		return
	}
	switch method {
	case "countTokens":
		req.Answered = "count_tokens"
		writeJSON(w, 200, map[string]any{"totalTokens": len(req.Body) / 4})
		return
	case "generateContent":
		req.Answered, req.Usage = "side", DefaultUsage
		writeJSON(w, 200, geminiChunk(model, []any{map[string]any{"text": `{"next_speaker": "user", "reasoning": "The model answered."}`}}, "STOP", DefaultUsage))
		return
	case "streamGenerateContent":
	default:
		req.Answered = "404"
		geminiError(w, 404, "", "", model)
		return
	}
	req.Stream = true
	rep, scripted := s.next()
	req.Answered = "default"
	if scripted {
		req.Answered = "reply"
	}
	if rep.Status != 0 {
		req.Answered = strconv.Itoa(rep.Status)
		geminiError(w, rep.Status, rep.Message, rep.RetryAfter, model)
		return
	}
	u := rep.usage()
	req.Usage = u
	e := newSSE(w, r, rep.Delay)
	for _, word := range words(rep.Text) {
		if !e.pause() || !e.data(geminiChunk(model, []any{map[string]any{"text": word}}, "", u)) {
			return
		}
		if rep.Cut {
			cut()
		}
	}
	var last []any
	if rep.Tool != nil {
		last = append(last, map[string]any{"functionCall": map[string]any{"name": rep.Tool.Name, "args": rep.Tool.Input}})
	}
	e.data(geminiChunk(model, last, "STOP", u))
}

// geminiChunk is one GenerateContentResponse, with the usage of the
// whole answer.
func geminiChunk(model string, parts []any, finish string, u Usage) map[string]any {
	if parts == nil {
		parts = []any{}
	}
	cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
	if finish != "" {
		cand["finishReason"] = finish
	}
	return map[string]any{"candidates": []any{cand}, "modelVersion": model,
		"usageMetadata": geminiUsage(u)}
}

// data writes one data-only server-sent event, as the Gemini API streams.
func (e *sse) data(v any) bool {
	if _, err := io.WriteString(e.w, "data: "+marshal(v)+"\r\n\r\n"); err != nil {
		return false
	}
	e.w.(http.Flusher).Flush()
	return true
}

// geminiModel and geminiMethod split /v1beta/models/MODEL:METHOD.
func geminiModel(path string) string {
	m, _, _ := strings.Cut(strings.TrimPrefix(path, "/v1beta/models/"), ":")
	return m
}

func geminiMethod(path string) string {
	_, m, _ := strings.Cut(strings.TrimPrefix(path, "/v1beta/models/"), ":")
	return m
}
