package shape

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// module is the import path prefix of the module's own packages.
const module = "github.com/agentproto/agentproto/"

// frontEndAllowed are the packages every front end may import besides
// app and the front ends' own (cmd/..., mcp), each with its reason. Keep
// it short: a service a verb or a tool needs is reached through app.
var frontEndAllowed = map[string]string{
	"app":               "the use-case layer: one call per verb or tool",
	"internal/fault":    "errors carry their exit code; a front end refuses bad input with one",
	"internal/jsondoc":  "the rules every --json document follows",
	"internal/gitrepo":  "the repository a front end finds once and builds app over",
	"internal/config":   "the configuration the Factory loads once; verbs read defaults from it",
	"internal/gcfloor":  "how the command's process collects garbage, set before anything runs",
	"internal/prefault": "the command's heap mapped in at its start, before anything runs",
}

// notFrontEnds are packages under cmd/ that are no front end of the use
// cases: binaries serving an adapter, the sandbox or the sessions daemon,
// the man page generator, these checks.
var notFrontEnds = []string{"cmd/agentproto-adapter-", "cmd/agentproto-sandbox", "cmd/agentproto-sessions", "cmd/gen-man", "cmd/shape"}

// frontEndExceptions are the service packages front ends still import
// directly, by importing package: their use cases are not behind app yet,
// or the front end prints their document types. The list only shrinks:
// an entry no longer imported fails the test until it is removed, and a
// new import of a service fails it until the use case goes through app.
var frontEndExceptions = map[string][]string{
	"cmd/git-agentproto": {"sandbox"}, // made undumpable before anything runs
	"cmd/agentproto-mcp": {"sandbox"}, // the same
	"cmd/cmdutil":        {"gitstore", "sessions"},
	"cmd/forkcmd":        {"fork"},
	"cmd/initcmd":        {"internal/clonesetup"},
	"cmd/ledger":         {"gitstore"},
	"cmd/peercmd":        {"peers"},
	"cmd/pipelinecmd":    {"judge", "pipeline", "profiles"},
	"cmd/plan":           {"plans"},
	"cmd/plugincmd":      {"plugins/catalog"},
	"cmd/profilecmd":     {"profiles"},
	"cmd/scoutcmd":       {"scout"},
	"cmd/sessionscmd":    {"sessions"},
	"cmd/watchcmd":       {"watch"},
	"cmd/worktreecmd":    {"worktree"},
	// mcp's output schemas are inferred from the document types it
	// returns: these are read for their types, not called.
	"mcp": {"internal/secrets", "judge", "launch", "peers", "pipeline", "plans", "profiles", "sessions", "spend", "worktree"},
}

// frontEndImports maps each front-end package (its path in the module) to
// the module packages its non-test files import.
func frontEndImports(t *testing.T, root string) map[string][]string {
	fset := token.NewFileSet()
	out := map[string][]string{}
	for _, top := range []string{"cmd", "mcp"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			rel, _ := filepath.Rel(root, filepath.Dir(path))
			pkg := filepath.ToSlash(rel)
			if slices.ContainsFunc(notFrontEnds, func(p string) bool { return strings.HasPrefix(pkg, p) }) {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if dep, ok := strings.CutPrefix(p, module); ok && !slices.Contains(out[pkg], dep) {
					out[pkg] = append(out[pkg], dep)
				}
			}
			if _, ok := out[pkg]; !ok {
				out[pkg] = nil
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func TestFrontEndsImportServicesThroughApp(t *testing.T) {
	root := moduleRoot(t)
	imports := frontEndImports(t, root)
	if len(imports) < 20 || imports["mcp"] == nil {
		t.Fatalf("found %d front-end packages; the walk is broken", len(imports))
	}
	pkgs := make([]string, 0, len(imports))
	for pkg := range imports {
		pkgs = append(pkgs, pkg)
	}
	sort.Strings(pkgs)
	for _, pkg := range pkgs {
		for _, dep := range imports[pkg] {
			switch {
			case strings.HasPrefix(dep, "cmd/") || dep == "mcp" || frontEndAllowed[dep] != "":
			case slices.Contains(frontEndExceptions[pkg], dep):
			default:
				t.Errorf("%s imports %s: a front end reaches services through app/ (add the use case there and call it)", pkg, dep)
			}
		}
		for _, dep := range frontEndExceptions[pkg] {
			if !slices.Contains(imports[pkg], dep) {
				t.Errorf("%s no longer imports %s: remove it from frontEndExceptions", pkg, dep)
			}
		}
	}
	for pkg := range frontEndExceptions {
		if _, ok := imports[pkg]; !ok {
			t.Errorf("frontEndExceptions names %s, which is no front-end package: remove it", pkg)
		}
	}
}
