package plans

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/internal/testgit"
)

// A base tree with a symlink leading out of it (and one leading inside),
// made and read with the real git binary.
func linkedBase(t *testing.T) (string, *BaseTree) {
	t.Helper()
	testgit.Isolate(t)
	dir := testgit.Init(t)
	outside := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "docs", "v2"), 0o755)
	os.WriteFile(filepath.Join(dir, "docs", "v2", "a.md"), []byte("a\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n"), 0o644)
	os.Symlink("../../"+filepath.Base(outside), filepath.Join(dir, "docs", "out"))
	os.Symlink("v2", filepath.Join(dir, "docs", "cur"))
	os.Symlink("/etc", filepath.Join(dir, "etc"))
	os.Symlink("docs/out", filepath.Join(dir, "hop"))
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", "base")
	repo, err := gitrepo.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	bt, err := ReadBaseTree(repo, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	return dir, bt
}

func TestReadBaseTreeReadsLinks(t *testing.T) {
	_, bt := linkedBase(t)
	want := map[string]string{"docs/cur": "v2", "etc": "/etc", "hop": "docs/out"}
	for p, tgt := range want {
		if bt.Links[p] != tgt {
			t.Errorf("link %s = %q, want %q (all: %v)", p, bt.Links[p], tgt, bt.Links)
		}
	}
	if !strings.HasPrefix(bt.Links["docs/out"], "../../") || len(bt.Files) != 7 {
		t.Errorf("tree read wrong: %v %v", bt.Links, bt.Files)
	}
}

func containPlan(owns, shared string) string {
	return `base="main"
gate="t"
shared=[` + shared + `]
[[wp]]
id="WP0"
brief="b.md"
owns=[` + owns + `]`
}

func TestCheckRefusesPerimeterThroughEscapingSymlink(t *testing.T) {
	dir, bt := linkedBase(t)
	contract, _ := ContractBlock("", config.Default().Plans)
	good := goodBrief(t, contract)
	bad := map[string][2]string{
		"owns beneath a link out":          {`"docs/out/x.go"`, ``},
		"owns a wildcard beneath":          {`"docs/*/evil.sh"`, ``},
		"owns everything":                  {`"**"`, ``},
		"owns through an absolute link":    {`"etc/cron.d/x"`, ``},
		"owns through a chain of links":    {`"hop/x"`, ``},
		"shared wiring target beneath":     {`"main.go"`, `"docs/out/registry.txt"`},
		"owns go files anywhere, link too": {`"**/*.sh"`, ``},
		"owns the link itself":             {`"docs/out"`, ``},
	}
	for name, c := range bad {
		t.Run(name, func(t *testing.T) {
			p := project(t, containPlan(c[0], c[1]), map[string]string{"b.md": good})
			r := Check(p, CheckInput{Contract: contract}.WithBase(bt))
			if codes(r)["perimeter-through-symlink"] == 0 || r.OK {
				t.Fatalf("accepted: %+v", r.Findings)
			}
		})
	}
	fine := map[string][2]string{
		"owns through a link inside":    {`"docs/cur/b.md"`, ``},
		"owns beside the links":         {`"docs/v2/**", "main.go"`, `"README.md"`},
		"owns a wildcard with no links": {`"docs/v2/*.md"`, ``},
	}
	for name, c := range fine {
		t.Run(name, func(t *testing.T) {
			p := project(t, containPlan(c[0], c[1]), map[string]string{"b.md": good})
			r := Check(p, CheckInput{Contract: contract, WorkTree: dir}.WithBase(bt))
			if n := codes(r)["perimeter-through-symlink"]; n != 0 {
				t.Fatalf("refused: %+v", r.Findings)
			}
		})
	}
}

// A symlink only on disk (untracked, say a build directory) that leads out
// is caught by the disk check.
func TestCheckRefusesPerimeterThroughSymlinkOnDisk(t *testing.T) {
	dir, bt := linkedBase(t)
	if err := os.Symlink(t.TempDir(), filepath.Join(dir, "build")); err != nil {
		t.Fatal(err)
	}
	contract, _ := ContractBlock("", config.Default().Plans)
	p := project(t, containPlan(`"build/out.txt"`, ``), map[string]string{"b.md": goodBrief(t, contract)})
	if r := Check(p, CheckInput{Contract: contract}.WithBase(bt)); codes(r)["perimeter-through-symlink"] != 0 {
		t.Fatalf("without the disk check, the base tree alone has no such link: %+v", r.Findings)
	}
	r := Check(p, CheckInput{Contract: contract, WorkTree: dir}.WithBase(bt))
	if codes(r)["perimeter-through-symlink"] == 0 {
		t.Fatalf("accepted: %+v", r.Findings)
	}
	for _, f := range r.Findings {
		if f.Code == "perimeter-through-symlink" && !strings.Contains(f.Message, `"build" is a symlink`) {
			t.Errorf("message does not name the link: %s", f.Message)
		}
	}
}
