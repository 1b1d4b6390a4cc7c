package scripted

import "github.com/agentproto/agentproto/plugins/sdk"

// usage is the usage step's report, as a script writes it:
//
//	{"op":"usage","usage":{"input":1000,"cached":500,"output":80,"cost":0.01}}
//
// It is the turn's running total, as sdk.ReportUsage takes it; without
// cost the turn has no figure of its own and is priced by the host.
type usage struct {
	Model    string   `json:"model,omitempty"`
	Input    int64    `json:"input,omitempty"`
	Cached   int64    `json:"cached,omitempty"`
	Creation int64    `json:"creation,omitempty"`
	Output   int64    `json:"output,omitempty"`
	Cost     *float64 `json:"cost,omitempty"`
	Final    bool     `json:"final,omitempty"`
}

func (u usage) sdk() sdk.Usage {
	r := sdk.Usage{Model: u.Model, InputTokens: u.Input, CachedInputTokens: u.Cached, CacheCreationTokens: u.Creation,
		OutputTokens: u.Output, Final: u.Final}
	if u.Cost != nil {
		r.CostUSD, r.HasCost = *u.Cost, true
	}
	return r
}
