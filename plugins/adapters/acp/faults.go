package acp

import (
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/agentproto/agentproto/plugins/sdk"
)

// Warnings the adapter reports, the SDK's typed ones: the host records
// them with the session and never falls back for them.
const (
	// WarnPermissionDenied: a write, read or tool was refused; the text
	// names the tool and the path.
	WarnPermissionDenied = sdk.WarnPermissionDenied
	// WarnInterrupted: a turn ended by session/cancel.
	WarnInterrupted = sdk.WarnInterrupted
)

func warn(out sdk.Emitter, kind, text string) { sdk.Warn(out, kind, text) }

// errText is what a failed call says, once: the message and the details
// agents put in the error's data.
func errText(err error) string {
	var re *acpsdk.RequestError
	if !errors.As(err, &re) {
		return err.Error()
	}
	parts := []string{re.Message}
	add := func(s string) {
		s = strings.TrimSpace(s)
		for _, p := range parts {
			if strings.Contains(p, s) {
				return
			}
		}
		if s != "" {
			parts = append(parts, s)
		}
	}
	switch d := re.Data.(type) {
	case string:
		add(d)
	case map[string]any:
		for _, k := range []string{"details", "message", "error"} {
			if v, ok := d[k]; ok {
				if s, ok := v.(string); ok {
					add(s)
				} else if b, err := json.Marshal(v); err == nil {
					add(string(b))
				}
			}
		}
	case nil:
	default:
		if b, err := json.Marshal(d); err == nil {
			add(string(b))
		}
	}
	return strings.Join(parts, ": ")
}

// statusPattern finds an HTTP status the agent quotes ("status 429",
// "429 Too Many Requests", "\"code\":503", "API Error: 401").
var statusPattern = regexp.MustCompile(`(?i)(?:status(?: code)?[ :=]*|"code"\s*:\s*|api error:?\s*|\b)(4\d\d|5\d\d)\b`)

// statusWords are the canonical statuses and reasons Google APIs put in
// their errors (Gemini CLI passes the provider's JSON on).
var statusWords = []struct{ word, fault string }{
	{"API_KEY_INVALID", sdk.FaultAuthFailed},
	{"API key not valid", sdk.FaultAuthFailed},
	{"PERMISSION_DENIED", sdk.FaultAuthFailed},
	{"is not found for API version", sdk.FaultInvalidModel},
	{"RESOURCE_EXHAUSTED", sdk.FaultRateLimited},
	{"\"UNAVAILABLE\"", sdk.FaultProviderUnavailable},
}

// classify types a turn's error: the provider's words first (they name
// the cause: "model not found" arrives with a 404, "overloaded" with a
// 529), an HTTP status the agent quotes next.
func classify(text string) string {
	for _, w := range statusWords {
		if strings.Contains(text, w.word) {
			return w.fault
		}
	}
	if f := sdk.ClassifyFault(text); f != "" && f != sdk.FaultAuthFailed && f != sdk.FaultProviderUnavailable && f != sdk.FaultRateLimited {
		return f
	}
	for _, m := range statusPattern.FindAllStringSubmatch(text, -1) {
		if n, err := strconv.Atoi(m[1]); err == nil {
			if f := sdk.FaultOfStatus(n); f != "" {
				return f
			}
		}
	}
	return sdk.ClassifyFault(text)
}
