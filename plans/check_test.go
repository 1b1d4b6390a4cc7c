package plans

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/config"
)

// project writes a plan folder from plan.toml text and briefs.
func project(t *testing.T, planTOML string, briefs map[string]string) *Project {
	t.Helper()
	work := t.TempDir()
	dir := ProjectDir(work, "p")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, PlanFile), []byte(planTOML), 0o644)
	os.WriteFile(filepath.Join(dir, "SPEC.md"), []byte("# SPEC\n"), 0o644)
	for name, text := range briefs {
		os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
	}
	p, err := Load(work, "p")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func codes(r *Report) map[string]int {
	out := map[string]int{}
	for _, f := range r.Findings {
		out[f.Code]++
	}
	return out
}

func goodBrief(t *testing.T, contract string) string {
	return "# WP\n\n" + contract + "\n## Forks\n- storage: default bbolt.\n\n## Report\nFiles touched, design choices, wiring lines, exit codes.\n"
}

func TestCheckFindings(t *testing.T) {
	contract, err := ContractBlock("", config.Default().Plans)
	if err != nil {
		t.Fatal(err)
	}
	good := goodBrief(t, contract)
	base := []string{"a/x.go", "b/y.go", "go.mod"}
	cases := []struct {
		name   string
		plan   string
		briefs map[string]string
		want   []string // codes that must appear
		clean  bool
	}{
		{"clean", `base="main"
gate="make test"
shared=["go.mod"]
[[wp]]
id="WP0"
brief="b0.md"
owns=["a"]
[[wp]]
id="WP1"
brief="b1.md"
owns=["b/*.go"]
depends_on=["WP0"]`, map[string]string{"b0.md": good, "b1.md": good}, nil, true},
		{"duplicate and bad ids", `base="main"
gate="t"
[[wp]]
id="WP0"
brief="b.md"
owns=["a"]
[[wp]]
id="WP0"
brief="b.md"
owns=["b"]
[[wp]]
id="wp-two"
brief="b.md"
owns=["c"]
depends_on=["WP0"]`, map[string]string{"b.md": good}, []string{"duplicate-wp", "bad-wp-id"}, false},
		{"contract missing and altered", `base="main"
gate="t"
[[wp]]
id="WP0"
brief="b0.md"
owns=["a"]
[[wp]]
id="WP1"
brief="b1.md"
owns=["b"]
depends_on=["WP0"]`, map[string]string{
			"b0.md": strings.Replace(good, ContractBegin, "", 1),
			"b1.md": strings.Replace(good, "a pipe hides", "a pipe may hide", 1),
		}, []string{"contract-block-missing", "contract-block-altered"}, false},
		{"forks without defaults, report missing items", `base="main"
gate="t"
[[wp]]
id="WP0"
brief="b0.md"
owns=["a"]`, map[string]string{"b0.md": "# x\n" + contract + "## Forks\n- storage\n## Report\nFiles touched.\n"},
			[]string{"missing-stop-if-fork", "missing-report-section"}, false},
		{"no wp0, missing base and gate", `[[wp]]
id="WP1"
brief="b.md"
owns=["a"]`, map[string]string{"b.md": good}, []string{"wp0-not-first", "missing-base", "missing-gate"}, false},
		{"brief escapes the folder", `base="main"
gate="t"
[[wp]]
id="WP0"
brief="../../etc/passwd"
owns=["a"]`, nil, []string{"path-escape"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := project(t, c.plan, c.briefs)
			r := Check(p, CheckInput{Contract: contract, BaseFiles: base})
			got := codes(r)
			for _, w := range c.want {
				if got[w] == 0 {
					t.Errorf("missing %s in %+v", w, r.Findings)
				}
			}
			if c.clean && (!r.OK || r.Errors != 0) {
				t.Errorf("clean plan has findings: %+v", r.Findings)
			}
			if !c.clean && r.OK {
				t.Errorf("bad plan passed")
			}
		})
	}
}

func TestAlteredContractSaysWhere(t *testing.T) {
	contract, _ := ContractBlock("", config.Default().Plans)
	brief := "# t\n\n" + strings.Replace(contract, "Truth is the disk", "Truth is the report", 1)
	code, detail := compareContract(brief, contract)
	if code != "contract-block-altered" || !strings.Contains(detail, "line 11") || !strings.Contains(detail, "found \"report.") {
		t.Fatalf("%s: %s", code, detail)
	}
}

func TestChangeTargets(t *testing.T) {
	spec := "# S\n## Goal\n- `not/this.go`\n## Changes\n- `a/b.go`: x\n* `c.md` and `d.md`\ntext `e.go`\n## Facts\n- `f.go`\n"
	got := strings.Join(ChangeTargets(spec), ",")
	if got != "a/b.go,c.md" {
		t.Fatalf("targets = %s", got)
	}
}

func TestOwner(t *testing.T) {
	p := project(t, `shared=["go.mod"]
[[wp]]
id="WP0"
owns=["api"]
[[wp]]
id="WP1"
owns=["**/*.go"]`, nil)
	for path, want := range map[string]string{"api/x.go": "WP0,WP1", "go.mod": "shared", "README": "nobody", "./lib/z.go": "WP1"} {
		if got := strings.Join(Owner(p, path), ","); got != want {
			t.Errorf("Owner(%s) = %s, want %s", path, got, want)
		}
	}
}

// The built-in contract points executors to AGENTS.md: a base tree without
// it is a warning, which says whether the file only lacks a commit.
func TestCheckAgentInstructionsMissing(t *testing.T) {
	contract, err := ContractBlock("", config.Default().Plans)
	if err != nil {
		t.Fatal(err)
	}
	p := project(t, `base="main"
gate="make test"
[[wp]]
id="WP0"
brief="b0.md"
owns=["a"]`, map[string]string{"b0.md": goodBrief(t, contract)})
	in := CheckInput{Contract: contract, BaseFiles: []string{"a/x.go"}, AgentInstructions: "AGENTS.md"}
	r := Check(p, in)
	var got *Finding
	for i, f := range r.Findings {
		if f.Code == "agent-instructions-missing" {
			got = &r.Findings[i]
		}
	}
	if got == nil || got.Severity != SevWarning || got.File != "AGENTS.md" || !r.OK || !strings.Contains(got.Message, "commit it, or set [plans] agent_instructions") {
		t.Fatalf("without AGENTS.md: %+v", r.Findings)
	}
	work := t.TempDir()
	os.WriteFile(filepath.Join(work, "AGENTS.md"), []byte("# done\n"), 0o644)
	in.WorkTree = work
	if r := Check(p, in); !strings.Contains(r.Findings[len(r.Findings)-1].Message, "in the working tree but not committed") {
		t.Fatalf("uncommitted AGENTS.md: %+v", r.Findings)
	}
	in.BaseFiles = append(in.BaseFiles, "AGENTS.md")
	if c := codes(Check(p, in)); c["agent-instructions-missing"] != 0 {
		t.Fatalf("with AGENTS.md at the base: %v", c)
	}
	// A contract of the repository's own that names no such file.
	in.BaseFiles, in.Contract = []string{"a/x.go"}, ContractBegin+"\nbe good\n"+ContractEnd+"\n"
	if c := codes(Check(p, in)); c["agent-instructions-missing"] != 0 {
		t.Fatalf("a contract without the name: %v", c)
	}
}
