package cmdutil

import "github.com/spf13/pflag"

// oldSpellings maps flag names the CLI once used to the one spelling per
// concept it uses now: --goal and --agent name a goal and an agent
// everywhere; a command that only previews unless told to act takes
// --apply (one that acts unless told to preview takes --dry-run). The old
// names still parse, and help shows only the new ones.
var oldSpellings = map[string]string{
	"goal-id":  "goal",
	"agent-id": "agent",
	"execute":  "apply",
}

// NormalizeFlagName is the root's flag normalization: pflag applies it to
// every flag as it is defined and as it is parsed, so an old spelling is a
// hidden alias of the new one.
func NormalizeFlagName(_ *pflag.FlagSet, name string) pflag.NormalizedName {
	if canonical, ok := oldSpellings[name]; ok {
		return pflag.NormalizedName(canonical)
	}
	return pflag.NormalizedName(name)
}
