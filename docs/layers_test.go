package docs

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/agentproto/agentproto/"

// layer ranks a package as docs/architecture.md draws it: 3 for the front
// ends and the use-case layer under them (app), 2 for the services and the adapters beside them, 1 for the floors,
// 0 for what is no layer (e2e, bench, examples, these checks).
func layer(pkg string) int {
	first, _, _ := strings.Cut(pkg, "/")
	switch {
	case first == "cmd" || first == "mcp" || first == "app":
		return 3
	case strings.HasPrefix(pkg, "plugins/adapters"):
		return 2
	case first == "gitstore" || first == "internal" || first == "plugins" || first == "sandbox":
		return 1
	}
	switch first {
	case "pipeline", "worktree", "launch", "sessions", "peers", "fork", "scout",
		"watch", "lessons", "plans", "profiles", "hooks", "forge", "isolation":
		return 2
	}
	return 0
}

// TestArchitectureLayers fails when a package imports one from a layer above
// its own, or a package outside cmd/ imports one of cmd/: the one-way layers
// docs/architecture.md describes.
func TestArchitectureLayers(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	ranked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, ok := strings.CutPrefix(fields[0], module)
		if !ok || layer(pkg) == 0 {
			continue
		}
		ranked++
		for _, imp := range fields[1:] {
			dep, ok := strings.CutPrefix(imp, module)
			if !ok {
				continue
			}
			if layer(dep) > layer(pkg) {
				t.Errorf("%s (layer %d) imports %s (layer %d): imports point down only", pkg, layer(pkg), dep, layer(dep))
			}
			if strings.HasPrefix(dep, "cmd/") && !strings.HasPrefix(pkg, "cmd/") {
				t.Errorf("%s imports %s: only the command tree uses cmd/ packages", pkg, dep)
			}
		}
	}
	if ranked < 40 {
		t.Fatalf("only %d packages ranked; go list no longer lists the module", ranked)
	}
}
