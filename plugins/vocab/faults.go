package vocab

import (
	"strconv"
	"strings"

	"github.com/agentproto/agentproto/internal/lazyre"
)

// Faults are the typed provider failures an adapter reports with Error, so
// the host can fall back to another provider instead of guessing from text.
const (
	FaultInsufficientCredits = "insufficient_credits"
	FaultInvalidModel        = "invalid_model"
	FaultAuthFailed          = "auth_failed"
	FaultRateLimited         = "rate_limited"
	FaultProviderUnavailable = "provider_unavailable"
	FaultEmptyTurn           = "empty_turn"
	// FaultAdapterStartTimeout: the agent did not finish starting in time
	// (e.g. it needs a newer Node.js): the agent on this machine, not the
	// provider, so no fallback to another provider follows.
	FaultAdapterStartTimeout = "adapter_start_timeout"
)

// Warnings are typed notices about a turn that are not provider faults:
// the host records them with the session and never falls back for them.
// An adapter reports one with sdk.Warn.
const (
	// WarnPermissionDenied: the agent's own permission system refused a
	// tool (a write, a command); the text names the tool and the path.
	WarnPermissionDenied = "permission_denied"
	// WarnInterrupted: the turn was stopped by an interrupt; the session
	// stays usable.
	WarnInterrupted = "interrupted"
	// WarnRetrying: the CLI is retrying a transient provider error.
	WarnRetrying = "retrying"
	// WarnCommandStopped: the turn ended while a command the agent started
	// still ran, and the CLI stopped it: what it had not done (a write) is
	// missing though the turn ended as any other.
	WarnCommandStopped = "command_stopped"
	// WarnEmptyAfterInterrupt: the host's word for a turn that ended with
	// no output right after an interrupted one — the agent's answer to the
	// prompt sent with the interrupt, not a sign of a dead provider.
	WarnEmptyAfterInterrupt = "empty_after_interrupt"
)

var warnings = map[string]bool{WarnPermissionDenied: true, WarnInterrupted: true, WarnRetrying: true, WarnCommandStopped: true, WarnEmptyAfterInterrupt: true}

// IsWarning reports whether kind, as carried by an error event, is one of
// the warning kinds rather than a fault.
func IsWarning(kind string) bool { return warnings[kind] }

// FaultOfStatus maps a provider's HTTP status to a fault, or "" for a
// status that says nothing about the provider (400, 413...).
func FaultOfStatus(status int) string {
	switch {
	case status == 401 || status == 403:
		return FaultAuthFailed
	case status == 402:
		return FaultInsufficientCredits
	case status == 404:
		return FaultInvalidModel
	case status == 429:
		return FaultRateLimited
	case status >= 500 && status <= 599:
		return FaultProviderUnavailable
	}
	return ""
}

// statusInText finds the HTTP status CLIs quote in their error messages:
// "API Error: 529 ...", "unexpected status 401 Unauthorized".
var statusInText = lazyre.New(`(?i)(?:api error:?|unexpected status|status code:?|http) ?([1-5][0-9][0-9])\b`)

// faultPhrases map what provider CLIs print to typed faults, checked in
// order (the first match wins). Matching is case-insensitive.
var faultPhrases = []struct {
	fault   string
	phrases []string
}{
	{FaultInsufficientCredits, []string{"credit balance is too low", "insufficient credit", "insufficient_quota", "quota exceeded", "exceeded your current quota", "billing", "payment required", "out of credits"}},
	{FaultInvalidModel, []string{"invalid model", "model not found", "unknown model", "model_not_found", "does not exist or you do not have access", "not a valid model", "unsupported model", "issue with the selected model"}},
	{FaultAuthFailed, []string{"invalid api key", "invalid x-api-key", "incorrect api key", "authentication_error", "authentication failed", "unauthorized", "not logged in", "please run /login", "permission denied by provider", "missing environment variable"}},
	{FaultRateLimited, []string{"rate limit", "rate_limit", "too many requests"}},
	{FaultProviderUnavailable, []string{"overloaded", "at capacity", "service unavailable", "bad gateway", "connection refused", "could not connect", "network error", "timed out", "internal server error", "stream disconnected", "error sending request"}},
}

// ClassifyFault returns the fault a provider message means, or "" when it
// does not look like a provider failure. Phrases come first (a 429 that
// says "quota" is out of credits, not rate limited), then a quoted HTTP
// status. Adapters that get structured fields (an error type, a status)
// should map those first and use this for text only.
func ClassifyFault(text string) string {
	t := strings.ToLower(text)
	for _, fp := range faultPhrases {
		for _, p := range fp.phrases {
			if strings.Contains(t, p) {
				return fp.fault
			}
		}
	}
	if m := statusInText.FindStringSubmatch(text); m != nil {
		n, _ := strconv.Atoi(m[1])
		return FaultOfStatus(n)
	}
	return ""
}
