package vocab

// Usage is what one turn has used so far, as the agent reported it.
// Token counts are the provider's: InputTokens are the uncached input,
// CachedInputTokens the input read from the provider's cache (billed at a
// fraction), CacheCreationTokens the input written to it (billed above
// the input price). A turn whose agent reports nothing sends no Usage at
// all, and is recorded as unknown, never as zero.
type Usage struct {
	Model               string
	InputTokens         int64
	CachedInputTokens   int64
	CacheCreationTokens int64
	OutputTokens        int64
	// CostUSD is the agent's own figure, when HasCost; without one the
	// host prices the tokens from its price table, if it has the model.
	CostUSD float64
	HasCost bool
	// Final marks the agent's own account of the whole turn (claude's
	// result line, codex's turn.completed), which corrects any running
	// figure sent before it.
	Final bool
}
