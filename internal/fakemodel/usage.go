package fakemodel

// usage is what a reply reports.
func (r Reply) usage() Usage {
	if r.Usage != nil {
		return *r.Usage
	}
	return DefaultUsage
}

// anthropicUsage is the Messages API's usage object: input_tokens is the
// uncached input; cache reads and writes are counted apart
// (docs.anthropic.com, "Prompt caching": "Tracking cache performance").
func anthropicUsage(u Usage, output int64) map[string]any {
	return map[string]any{"input_tokens": u.Input, "cache_creation_input_tokens": u.CacheCreation,
		"cache_read_input_tokens": u.CacheRead, "output_tokens": output}
}

// openaiUsage is the Responses API's usage object: input_tokens includes
// the cached tokens, which input_tokens_details.cached_tokens counts
// (platform.openai.com, "Prompt caching"). The API has no cache writes.
func openaiUsage(u Usage) map[string]any {
	in := u.Input + u.CacheRead
	return map[string]any{"input_tokens": in, "input_tokens_details": map[string]any{"cached_tokens": u.CacheRead},
		"output_tokens": u.Output, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": in + u.Output}
}

// geminiUsage is the Gemini API's usageMetadata: promptTokenCount
// includes the cached tokens, which cachedContentTokenCount counts
// (ai.google.dev, "Context caching"). The API has no cache writes.
func geminiUsage(u Usage) map[string]any {
	prompt := u.Input + u.CacheRead
	m := map[string]any{"promptTokenCount": prompt, "candidatesTokenCount": u.Output, "totalTokenCount": prompt + u.Output}
	if u.CacheRead > 0 {
		m["cachedContentTokenCount"] = u.CacheRead
	}
	return m
}
