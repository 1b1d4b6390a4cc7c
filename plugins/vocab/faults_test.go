package vocab

import "testing"

func TestClassifyFault(t *testing.T) {
	for text, want := range map[string]string{
		"API Error: 529 Overloaded. This is a server-side issue":                        FaultProviderUnavailable,
		"unexpected status 401 Unauthorized: Incorrect API key provided: sk-ab*****":    FaultAuthFailed,
		"Missing environment variable: `OPENAI_API_KEY`":                                FaultAuthFailed,
		"Selected model is at capacity. Please try a different model.":                  FaultProviderUnavailable,
		"There's an issue with the selected model (claude-x). It may not exist":         FaultInvalidModel,
		"unexpected status 429 Too Many Requests: You exceeded your current quota":      FaultInsufficientCredits,
		"unexpected status 429 Too Many Requests: Rate limit reached for requests":      FaultRateLimited,
		"unexpected status 503 Service Unavailable: The engine is currently overloaded": FaultProviderUnavailable,
		"unexpected status 404 Not Found: url: http://x/v1/responses":                   FaultInvalidModel,
		"wrote 401 lines to main.go":                                                    "",
	} {
		if got := ClassifyFault(text); got != want {
			t.Errorf("%q: %q, want %q", text, got, want)
		}
	}
}

// Every text maps to a fault of the closed set or to nothing, never to a
// warning kind.
func FuzzClassifyFault(f *testing.F) {
	f.Add("API Error: 529 Overloaded")
	f.Add("unexpected status 401 Unauthorized")
	f.Fuzz(func(t *testing.T, text string) {
		switch got := ClassifyFault(text); got {
		case "", FaultInsufficientCredits, FaultInvalidModel, FaultAuthFailed, FaultRateLimited, FaultProviderUnavailable:
		default:
			t.Fatalf("%q -> %q", text, got)
		}
	})
}
