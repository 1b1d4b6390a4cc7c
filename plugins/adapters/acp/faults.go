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

// Warnings the adapter reports. They are not faults: the session goes on.
const (
	// WarnPermissionDenied: a write, read or tool was refused.
	WarnPermissionDenied = "permission_denied"
	// WarnInterrupted: a turn ended by session/cancel.
	WarnInterrupted = "interrupted"
)

// warner is an Emitter that carries typed warnings.
type warner interface {
	Warning(text, kind string)
}

// warn reports a typed warning: through the emitter's own warning event
// when it has one, else as an error event without a fault, which the
// sessions daemon records as a warning and never counts as a failure.
func warn(out sdk.Emitter, kind, text string) {
	if w, ok := out.(warner); ok {
		w.Warning(text, kind)
		return
	}
	out.Error(kind+": "+text, "")
}

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

// statusFaults maps provider HTTP statuses to faults.
var statusFaults = map[int]string{
	401: sdk.FaultAuthFailed, 403: sdk.FaultAuthFailed,
	402: sdk.FaultInsufficientCredits,
	404: sdk.FaultInvalidModel,
	429: sdk.FaultRateLimited,
	500: sdk.FaultProviderUnavailable, 502: sdk.FaultProviderUnavailable,
	503: sdk.FaultProviderUnavailable, 504: sdk.FaultProviderUnavailable,
	529: sdk.FaultProviderUnavailable,
}

// classify types a turn's error: the provider's words first (they name
// the cause: "model not found" arrives with a 404, "overloaded" with a
// 529), an HTTP status the agent quotes next.
func classify(text string) string {
	if f := sdk.ClassifyFault(text); f != "" && f != sdk.FaultAuthFailed && f != sdk.FaultProviderUnavailable && f != sdk.FaultRateLimited {
		return f
	}
	for _, m := range statusPattern.FindAllStringSubmatch(text, -1) {
		if n, err := strconv.Atoi(m[1]); err == nil {
			if f, ok := statusFaults[n]; ok {
				return f
			}
		}
	}
	return sdk.ClassifyFault(text)
}
