package pipeline

import (
	"strings"
	"testing"

	"github.com/agentproto/agentproto/perimeter"
	"github.com/agentproto/agentproto/plans"
	"github.com/agentproto/agentproto/plugins/adapters/acp"
)

// The perimeter a WP's session gets refuses exactly what verify would
// flag: paths of other WPs, shared files, paths nobody owns.
func TestWithPerimeterMatchesOwnership(t *testing.T) {
	p := &plans.Project{Name: "demo", Plan: plans.Plan{Shared: []string{"go.mod"}, WPs: []plans.WP{
		{ID: "WP1", Owns: []string{"parser"}},
		{ID: "WP2", Owns: []string{"cmd/*.go"}},
	}}}
	env := withPerimeter([]string{"PATH=/bin", perimeter.Env + `={"allow":["**"]}`}, p, p.Plan.WPs[0])
	var spec string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, perimeter.Env+"="); ok {
			if spec != "" {
				t.Fatalf("two perimeters in %q", env)
			}
			spec = v
		}
	}
	per, err := acp.NewPerimeter(t.TempDir(), spec)
	if err != nil {
		t.Fatal(err)
	}
	for path, allowed := range map[string]bool{"parser/lex.go": true, "parser": true, "go.mod": false, "cmd/main.go": false, "README.md": false} {
		err := per.CheckWrite(path)
		owners := plans.Owner(p, path)
		verified := len(owners) == 1 && owners[0] == "WP1"
		if (err == nil) != allowed || allowed != verified {
			t.Errorf("%s: CheckWrite %v, owners %v, want allowed=%v", path, err, owners, allowed)
		}
	}
}
