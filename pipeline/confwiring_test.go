package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/internal/testgit"
	"github.com/agentproto/agentproto/plans"
)

func TestParseRename(t *testing.T) {
	r, err := ParseRename(`WP2:scripts.test=scripts."test.e2e"`)
	if err != nil || r.WP != "WP2" || r.From.String() != "scripts.test" || r.To[1] != "test.e2e" {
		t.Fatalf("ParseRename: %+v %v", r, err)
	}
	if r.String() != `WP2:scripts.test=scripts."test.e2e"` {
		t.Fatalf("String() = %s", r)
	}
	for _, bad := range []string{"", "WP2", ":a=b", "WP2:a", "WP2:a=", "WP2:=b", "WP2:a b=c"} {
		if _, err := ParseRename(bad); err == nil {
			t.Errorf("ParseRename(%q) gave no error", bad)
		}
	}
}

// planConfig reads each snippet against the base, refuses what it cannot
// merge with a finding naming the WP and the file, and leaves plain files
// to line wiring.
func TestPlanConfigFindings(t *testing.T) {
	dir := testgit.Init(t)
	os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"scripts": {"build": "tsc"}}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "tools.toml"), []byte("# tools\n[tools]\nupper = \"lib/upper.sh\"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "broken.json"), []byte(`{"a": `), 0o644)
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", "config")
	base := strings.TrimSpace(testgit.Run(t, dir, "rev-parse", "HEAD"))
	repo, err := gitrepo.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	p := &plans.Project{Name: "demo", Plan: plans.Plan{Shared: []string{"*.json", "*.toml", "registry.txt"},
		WPs: []plans.WP{{ID: "WP1", Owns: []string{"lib/**"}}, {ID: "WP2", Owns: []string{"src/**"}}}}}
	report := func(ws ...Wiring) Verification { return Verification{Report: &Report{Wiring: ws}} }
	st := &State{Verifications: map[string]Verification{
		"WP1": report(
			Wiring{File: "package.json", Snippet: `{"scripts": {"test": "t"}}`},
			Wiring{File: "tools.toml", Snippet: "[tools]\nlower = \"lib/lower.sh\"\n"},
			Wiring{File: "registry.txt", Line: "upper"},
			Wiring{File: "package.json", Line: `"x": 1`},
			Wiring{File: "lib/own.json", Snippet: `{"a": 1}`},
			Wiring{File: "registry.txt", Snippet: `{"a": 1}`},
		),
		"WP2": report(
			Wiring{File: "package.json", Snippet: `{"scripts": {"test": `},
			Wiring{File: "tools.toml", Remove: []string{"tools..x"}},
			Wiring{File: "broken.json", Snippet: `{"a": 1}`},
			Wiring{File: "../out.json", Snippet: `{"a": 1}`},
			Wiring{File: "package.json", Snippet: `{"scripts": {"lint": "l"}}`},
		),
	}}
	e := &Env{Repo: repo, Project: p}
	c := &Consolidation{}
	files, err := e.planConfig(p.Plan.WPs, st, base, nil, c)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range c.Findings {
		got = append(got, f.WP+" "+f.Code+" "+f.File)
		if !strings.Contains(f.Message, f.File) && f.Code != "wiring-path-refused" {
			t.Errorf("finding %+v does not name its file", f)
		}
	}
	want := "WP1 wiring-line-into-config package.json, WP1 wiring-not-shared lib/own.json, WP1 config-not-structured registry.txt, " +
		"WP2 config-malformed package.json, WP2 config-malformed tools.toml, WP2 config-malformed broken.json, WP2 wiring-path-refused ../out.json"
	if strings.Join(got, ", ") != want {
		t.Fatalf("findings:\n%s\nwant:\n%s", strings.Join(got, ", "), want)
	}
	if len(files) != 2 || files[0].file != "package.json" || files[1].file != "tools.toml" {
		t.Fatalf("files %+v", files)
	}
	text, m, err := files[1].merged([]byte("# tools\n[tools]\nupper = \"lib/upper.sh\"\n"))
	if err != nil || string(text) != "# tools\n[tools]\nupper = \"lib/upper.sh\"\nlower = \"lib/lower.sh\"\n" || !strings.Contains(m.Diff, `+lower = "lib/lower.sh"`) {
		t.Fatalf("tools.toml: %q %+v %v", text, m, err)
	}
	if _, err := e.planConfig(p.Plan.WPs, st, base, []Rename{{WP: "WP1", From: []string{"scripts", "none"}, To: []string{"x"}}}, &Consolidation{}); err == nil {
		t.Fatal("a rename of a key WP1 does not add was taken")
	}
}
