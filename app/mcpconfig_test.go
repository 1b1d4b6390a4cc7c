package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/fault"
)

func TestWriteMCPJSONMergesAndRefuses(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, MCPJSON)
	if changed, err := writeMCPJSON(dir); err != nil || !changed {
		t.Fatalf("new file: %v %v", changed, err)
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), `"agentproto"`) {
		t.Fatalf("new file: %s", b)
	}
	for _, bad := range []string{`not json`, `[1,2]`, `null`, `{"mcpServers":[1]}`, `{"mcpServers":"x"}`} {
		os.WriteFile(path, []byte(bad), 0o644)
		if _, err := writeMCPJSON(dir); fault.KindOf(err) != fault.Invalid {
			t.Fatalf("%s: %v", bad, err)
		}
		if got, _ := os.ReadFile(path); string(got) != bad {
			t.Fatalf("%s was rewritten as %s", bad, got)
		}
	}
	os.Remove(path)
	target := filepath.Join(t.TempDir(), "elsewhere.json")
	os.WriteFile(target, []byte(`{}`), 0o644)
	os.Symlink(target, path)
	if _, err := writeMCPJSON(dir); fault.KindOf(err) != fault.Refused {
		t.Fatalf("symlink: %v", err)
	}
	if got, _ := os.ReadFile(target); string(got) != `{}` {
		t.Fatalf("the symlink's target was written: %s", got)
	}
}

func TestSnippetNamesTheClient(t *testing.T) {
	for _, c := range MCPClients {
		s, err := mcpSnippet(c, "/r")
		if err != nil || !strings.Contains(s, "git-agentproto") {
			t.Fatalf("%s: %v %s", c, err, s)
		}
	}
	if _, err := mcpSnippet("vim", "/r"); fault.KindOf(err) != fault.Invalid {
		t.Fatalf("unknown client: %v", err)
	}
}
