package judge

import (
	"strings"
	"testing"
)

func TestRegistryFindings(t *testing.T) {
	ext := `{"name":"ext","contributes":{"commands":[{"command":"ext.hello"},{"command":"ext.bye"},{"command":"ext.twice"},{"command":"ext.twice"}],
 "configuration":{"properties":{"ext.color":{"type":"string"}}},"submenus":[{"id":"ext.menu"}]},
 "scripts":{"build":"tsc","lint":"eslint .","lint":"eslint src"}}`
	code := "import * as vscode from 'vscode';\nexport function activate(c) {\n  vscode.commands.registerCommand('ext.hello', () => 1);\n  vscode.commands.registerCommand(\"ext.ghost\", () => 2);\n  vscode.commands.registerCommand('ext.twice', () => 3);\n}\n"
	dir := writeTree(t, map[string]string{
		"package.json":     ext,
		"src/extension.ts": code,
		"src/routes.go":    "package src\n\nfunc routes(mux *http.ServeMux) {\n\tmux.HandleFunc(\"GET /users\", users)\n\tmux.HandleFunc(\"/users\", users)\n}\n",
		"registry.txt":     "# tools\nupper lib/upper.sh\nupper lib/other.sh\n",
		"src/ext.test.ts":  "registerCommand('ext.bye', () => 0)\n",
	})
	cases := []struct{ claim, want string }{
		{"command:ext.hello", ""},                 // declared once, registered once
		{"command:ext.bye", "registered-missing"}, // a test registering it does not count
		{"command:ext.ghost", "declared-missing"}, // registered, never declared
		{"command:ext.twice", "declared-twice"},
		{"command:ext.none", "claim-orphan"},
		{"config:ext.color", ""},
		{"config:ext.size", "claim-orphan"},
		{"menu:ext.menu", ""},
		{"script:build", ""},
		{"script:lint", "declared-twice"}, // appended twice: JSON keeps the last
		{"route:/users", "registered-twice"},
		{"command:upper", "declared-twice"}, // two registry lines
		{"tool:anything", ""},               // not a kind review can look up
	}
	for _, c := range cases {
		var cl []Claim
		if x, ok := ParseClaim("WP1", c.claim); ok {
			cl = append(cl, x)
		}
		fs := RegistryFindings(dir, cl, []string{"registry.txt"})
		if got := codes(fs); got != c.want {
			t.Errorf("%s: findings %q, want %q", c.claim, got, c.want)
		}
		for _, f := range fs {
			if f.WP != "WP1" || !strings.Contains(f.Message, c.claim) {
				t.Errorf("%s: finding %+v does not name the WP and the claim", c.claim, f)
			}
		}
	}
}

// FuzzJSONKeys: any manifest is read for its keys without a panic.
func FuzzJSONKeys(f *testing.F) {
	f.Add([]byte(`{"a":1,"scripts":{"x":"1","x":"2"}}`), "scripts")
	f.Add([]byte(`{"scripts":[1]}`), "scripts")
	f.Fuzz(func(t *testing.T, b []byte, member string) {
		for _, k := range jsonKeys(b, member) {
			_ = k
		}
	})
}
