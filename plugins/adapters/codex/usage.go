package codex

import "github.com/agentproto/agentproto/plugins/sdk"

// usage is turn.completed's account of the turn (codex 0.169):
//
//	{"input_tokens":62105,"cached_input_tokens":62000,"cache_write_input_tokens":0,"output_tokens":47,"reasoning_output_tokens":0}
//
// As in the Responses API it comes from, input_tokens includes the cached
// tokens, and output_tokens the reasoning tokens. After exec resume the
// counts are the whole thread's, every earlier turn included (measured:
// a second turn reported the first one's tokens again), so the turn's own
// is what grew since the thread's previous turn.completed. codex gives no
// cost, and nothing before the turn ends: a budget stops a codex session
// at the end of the turn that reached it.
type usage struct {
	Input      int64 `json:"input_tokens"`
	Cached     int64 `json:"cached_input_tokens"`
	CacheWrite int64 `json:"cache_write_input_tokens"`
	Output     int64 `json:"output_tokens"`
}

// since is what u added to prev, the thread's count at its previous
// turn; a count lower than prev in any field is a fresh thread's own.
func (u usage) since(prev usage) usage {
	if u.Input < prev.Input || u.Cached < prev.Cached || u.CacheWrite < prev.CacheWrite || u.Output < prev.Output {
		return u
	}
	return usage{Input: u.Input - prev.Input, Cached: u.Cached - prev.Cached, CacheWrite: u.CacheWrite - prev.CacheWrite, Output: u.Output - prev.Output}
}

// turnUsage is the report of a turn that ended with thread count u.
func (d *driver) turnUsage(u usage) sdk.Usage {
	d.mu.Lock()
	defer d.mu.Unlock()
	own := u
	if d.thread != "" && d.countThread == d.thread {
		own = u.since(d.count)
	}
	d.count, d.countThread = u, d.thread
	return own.sdk(d.model)
}

// sdk is the report of the whole turn, its input split into what was
// read from the cache and what was not. Cache writes (0 against OpenAI)
// are counted apart; should input_tokens include them, a turn is counted
// high, never low.
func (u usage) sdk(model string) sdk.Usage {
	return sdk.Usage{Model: model, InputTokens: max(u.Input-u.Cached, 0), CachedInputTokens: u.Cached,
		CacheCreationTokens: u.CacheWrite, OutputTokens: u.Output, Final: true}
}
