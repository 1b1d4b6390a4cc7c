package config

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/BurntSushi/toml"
)

// Inert are the keys of agentproto.toml (a table, or table.key) whose
// value changes nothing an executor session or its gate sees, nothing that
// runs outside the sandbox on the user's behalf, and not where credentials
// or branches go: e2e commands run after review, against the integration
// worktree, confined like the gates whose code executors already write;
// the ledger keys tune packing; pr.draft only marks the pull request.
// Every other key counts: [gates], [sessions], [plugins], [profiles],
// [worktree], [sandbox], [dispatch], [plans], [review], [budgets],
// [prices], [policies], [reactions], [sync], [claims], [fork] and the
// pull request's remote, repository and host.
var Inert = []string{"e2e", "ledger", "pr.draft"}

// Effective is the canonical form of what text sets beyond the Inert
// keys: two files with the same Effective differ only where no session
// can tell. ok is false for text that is no TOML (then every byte
// counts). An absent file is empty text.
func Effective(text []byte) (string, bool) {
	doc := map[string]any{}
	if _, err := toml.NewDecoder(bytes.NewReader(text)).Decode(&doc); err != nil {
		return "", false
	}
	for _, k := range Inert {
		table, key, nested := strings.Cut(k, ".")
		if !nested {
			delete(doc, table)
			continue
		}
		if t, ok := doc[table].(map[string]any); ok {
			delete(t, key)
			if len(t) == 0 {
				delete(doc, table)
			}
		}
	}
	// encoding/json sorts map keys: one form per content.
	b, err := json.Marshal(doc)
	if err != nil {
		return "", false
	}
	return string(b), true
}
