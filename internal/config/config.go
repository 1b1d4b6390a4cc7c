// Package config loads agentproto.toml strictly: an unknown key, a wrong type
// or a bad value is an error naming the key and its line.
package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// FileName is the config file at the top of the working tree.
const FileName = "agentproto.toml"

// Config is the whole of agentproto.toml. Every field has a default so that
// a repository without the file works.
type Config struct {
	Ledger   Ledger             `toml:"ledger" json:"ledger"`
	Sync     Sync               `toml:"sync" json:"sync"`
	Claims   Claims             `toml:"claims" json:"claims"`
	Fork     Fork               `toml:"fork" json:"fork"`
	Plans    Plans              `toml:"plans" json:"plans"`
	Worktree Worktree           `toml:"worktree" json:"worktree"`
	Plugins  Plugins            `toml:"plugins" json:"plugins"`
	Sessions Sessions           `toml:"sessions" json:"sessions"`
	Dispatch Dispatch           `toml:"dispatch" json:"dispatch"`
	E2E      E2E                `toml:"e2e" json:"e2e"`
	Gates    Gates              `toml:"gates" json:"gates"`
	PR       PR                 `toml:"pr" json:"pr"`
	Profiles map[string]Profile `toml:"profiles" json:"profiles"`
	Policies Policies           `toml:"policies" json:"policies"`
	Review   Review             `toml:"review" json:"review"`
	Sandbox  Sandbox            `toml:"sandbox" json:"sandbox"`
	// Reactions say what pr watch does with what happens on a pull
	// request agentproto opened (reactions.go).
	Reactions Reactions        `toml:"reactions" json:"reactions"`
	Prices    map[string]Price `toml:"prices" json:"prices,omitempty"`
	Budgets   Budgets          `toml:"budgets" json:"budgets,omitzero"`
}

// Default returns the configuration used when a key is absent.
func Default() Config {
	return Config{
		Ledger:   Ledger{PackThreshold: 16, AutoMaintenance: 2000},
		Sync:     Sync{Remote: "origin"},
		Plans:    Plans{Gate: "make test", AgentInstructions: "AGENTS.md"},
		Worktree: Worktree{HookTimeout: minutes(10)},
		Sessions: Sessions{IdleExit: minutes(10), WedgeAfter: minutes(10), ReleaseAfter: seconds(10)},
		Dispatch: Dispatch{MaxParallel: 4, Timeout: minutes(40), GateTimeout: minutes(30), RateLimitWait: seconds(30)},
		PR:       PR{Remote: "origin"},
		Review:   Review{MutationBudget: seconds(60)},
		// Reactions: reactions.go.
		Reactions: defaultReactions(),
	}
}

// Source says where a configuration came from.
type Source struct {
	Path   string `json:"path,omitempty"`
	Exists bool   `json:"exists"`
}

// Load reads agentproto.toml from the top of the working tree dir; a missing
// file yields the defaults.
func Load(workTree string) (Config, Source, error) {
	src := Source{}
	if workTree == "" {
		return Default(), src, nil
	}
	src.Path = filepath.Join(workTree, FileName)
	b, err := os.ReadFile(src.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return Default(), src, nil
	}
	if err != nil {
		return Config{}, src, err
	}
	src.Exists = true
	cfg, err := Parse(b, FileName)
	return cfg, src, err
}

// Parse decodes TOML text on top of the defaults and validates it. name is
// used in messages.
func Parse(text []byte, name string) (Config, error) {
	cfg := Default()
	if err := DecodeStrict(text, name, &cfg); err != nil {
		return Config{}, err
	}
	if err := cfg.validate(); err != nil {
		return Config{}, ValueError(text, name, err)
	}
	return cfg, nil
}
