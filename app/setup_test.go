package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/fault"
)

// A plan made by NewPlan is handed back with its templates; WritePlanFiles
// writes only plan files of the plan's own folder, never through a path
// or a symlink, and checks the plan after.
func TestNewPlanAndWritePlanFiles(t *testing.T) {
	repo := testRepo(t)
	e := Open(repo, nil)
	ctx := context.Background()
	made, err := e.NewPlan(ctx, NewPlanOptions{Name: "demo", Gate: "true", WPs: []NewWP{{ID: "WP1", Title: "one"}}})
	if err != nil || !made.Created || made.Files["WP1-brief.md"] == "" || made.Files["plan.toml"] == "" {
		t.Fatalf("NewPlan: %+v %v", made, err)
	}
	again, err := e.NewPlan(ctx, NewPlanOptions{Name: "demo", WPs: []NewWP{{ID: "WP1"}}})
	if fault.KindOf(err) != fault.Conflict || again.Created {
		t.Fatalf("a work package added twice: %+v %v", again, err)
	}
	outside := filepath.Join(t.TempDir(), "target.md")
	os.WriteFile(outside, []byte("keep"), 0o644)
	os.Symlink(outside, filepath.Join(repo.WorkTree, ".plans/demo/LINK.md"))
	for name, kind := range map[string]fault.Kind{"../x.md": fault.Invalid, "sub/x.md": fault.Invalid, "x.txt": fault.Invalid,
		".hidden.md": fault.Invalid, "LINK.md": fault.Refused} {
		if _, _, err := e.WritePlanFiles(ctx, "demo", map[string]string{name: "x", "SPEC.md": "changed"}); fault.KindOf(err) != kind {
			t.Errorf("%s: %v, want kind %d", name, err, kind)
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "keep" {
		t.Fatalf("written through the symlink: %s", b)
	}
	if b, _ := os.ReadFile(filepath.Join(repo.WorkTree, ".plans/demo/SPEC.md")); string(b) == "changed" {
		t.Fatal("a refused write wrote the other files")
	}
	brief := strings.Replace(made.Files["WP1-brief.md"], "one", "the first", 1)
	written, rep, err := e.WritePlanFiles(ctx, "demo", map[string]string{"WP1-brief.md": brief})
	if err != nil || len(written) != 1 || rep == nil {
		t.Fatalf("WritePlanFiles: %v %v %v", written, rep, err)
	}
	if b, _ := os.ReadFile(filepath.Join(repo.WorkTree, ".plans/demo/WP1-brief.md")); string(b) != brief {
		t.Fatal("the brief was not written")
	}
}

// A frozen plan's files are what its sessions were given: writing them
// is refused, and nothing is written.
func TestWritePlanFilesRefusesAFrozenPlan(t *testing.T) {
	repo := testRepo(t)
	e := Open(repo, nil)
	ctx := context.Background()
	made, err := e.NewPlan(ctx, NewPlanOptions{Name: "demo", Gate: "true", WPs: []NewWP{{ID: "WP1", Title: "one"}}})
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for name, text := range made.Files {
		if strings.HasSuffix(name, "-brief.md") {
			files[name] = strings.Replace(text, "- (fork): default (choice).", "- input: default stdin.", 1)
		}
	}
	toml := strings.Replace(made.Files["plan.toml"], "owns = []", `owns = ["contract.txt"]`, 1)
	files["plan.toml"] = strings.Replace(toml, "owns = []", `owns = ["one.txt"]`, 1)
	if _, rep, err := e.WritePlanFiles(ctx, "demo", files); err != nil || !rep.OK {
		t.Fatalf("the plan does not check: %+v %v", rep, err)
	}
	if _, err := e.FreezePlan(ctx, "demo"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.WritePlanFiles(ctx, "demo", map[string]string{"SPEC.md": "changed"}); fault.KindOf(err) != fault.Refused {
		t.Fatalf("writing a frozen plan: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(repo.WorkTree, ".plans/demo/SPEC.md")); string(b) == "changed" {
		t.Fatal("the frozen plan's SPEC was written")
	}
}
