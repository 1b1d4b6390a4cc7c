package scout

import (
	"sort"

	"github.com/agentproto/agentproto/internal/lazyre"
)

// A SPEC or a brief relies on a recon claim by naming it "recon:C3", so a
// plan check can tell which claims the plan stands on.
var claimRef = lazyre.New(`(?i)\brecon:(c[0-9]{1,4})\b`)

// Refs returns the claim ids text relies on, upper-cased, sorted, once each.
func Refs(text string) []string {
	seen := map[string]bool{}
	var ids []string
	for _, m := range claimRef.FindAllStringSubmatch(text, -1) {
		id := "C" + m[1][1:]
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}
