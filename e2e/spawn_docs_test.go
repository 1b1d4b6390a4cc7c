package e2e

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/config"
)

// Every configuration docs/adapters.md shows parses as agentproto.toml,
// the model switch and error log settings included.
func TestSpawnDocumentedConfigsParse(t *testing.T) {
	b, err := os.ReadFile("../docs/adapters.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```toml\n(.*?)```").FindAllStringSubmatch(string(b), -1)
	var switched int
	var ours int
	for i, m := range blocks {
		if !strings.Contains(m[1], "[profiles.") && !strings.Contains(m[1], "[plugins.") {
			continue // an agent's own config file ($CODEX_HOME/config.toml)
		}
		ours++
		cfg, err := config.Parse([]byte(m[1]), "docs/adapters.md")
		if err != nil {
			t.Errorf("block %d: %v\n%s", i+1, err, m[1])
			continue
		}
		for _, p := range cfg.Profiles {
			if p.ModelSwitch != "" && strings.Contains(p.ModelSwitchExpect, "{model}") {
				switched++
			}
		}
	}
	if ours < 5 || switched < 2 {
		t.Fatalf("%d agentproto.toml blocks, %d with a model switch", ours, switched)
	}
	for _, want := range []string{"[profiles.claude-acp]", "[profiles.codex-acp]", "[profiles.gemini-acp]", "[profiles.hermes]", `command = "hermes acp"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("docs/adapters.md lacks %s", want)
		}
	}
}
