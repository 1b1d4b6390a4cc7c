package sdk

import "strings"

// faultPhrases map what provider CLIs print to typed faults, checked in
// order (the first match wins). Matching is case-insensitive.
var faultPhrases = []struct {
	fault   string
	phrases []string
}{
	{FaultInsufficientCredits, []string{"credit balance is too low", "insufficient credit", "insufficient_quota", "quota exceeded", "exceeded your current quota", "billing", "payment required", "out of credits"}},
	{FaultInvalidModel, []string{"invalid model", "model not found", "unknown model", "model_not_found", "does not exist or you do not have access", "not a valid model", "unsupported model"}},
	{FaultAuthFailed, []string{"invalid api key", "invalid x-api-key", "authentication_error", "authentication failed", "unauthorized", "not logged in", "please run /login", "401", "permission denied by provider"}},
	{FaultRateLimited, []string{"rate limit", "rate_limit", "too many requests", "429"}},
	{FaultProviderUnavailable, []string{"overloaded", "service unavailable", "503", "502", "bad gateway", "connection refused", "could not connect", "network error", "timed out", "internal server error"}},
}

// ClassifyFault returns the fault a provider message means, or "" when it
// does not look like a provider failure.
func ClassifyFault(text string) string {
	t := strings.ToLower(text)
	for _, fp := range faultPhrases {
		for _, p := range fp.phrases {
			if strings.Contains(t, p) {
				return fp.fault
			}
		}
	}
	return ""
}
