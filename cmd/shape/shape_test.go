// Package shape holds checks on the shape of the command packages: a verb
// in cmd/ keeps flags, options and printing, and its logic lives in the
// library where a second front end can call it.
package shape

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxVerbBody bounds the body of a verb's RunE/Run function, in lines.
const maxVerbBody = 60

// moduleRoot is the directory of the go.mod above the test's directory.
func moduleRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
}

// verbBodies calls fn with every RunE or Run function literal of a cobra
// command, and every function whose name ends in Run (the runF default of
// the Options + runF shape), of the non-test files under dir.
func verbBodies(t *testing.T, dir string, fn func(name string, pos token.Position, lines int)) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		size := func(b *ast.BlockStmt) int {
			return fset.Position(b.Rbrace).Line - fset.Position(b.Lbrace).Line - 1
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.KeyValueExpr:
				key, ok := n.Key.(*ast.Ident)
				lit, isLit := n.Value.(*ast.FuncLit)
				if ok && isLit && (key.Name == "RunE" || key.Name == "Run") {
					fn(key.Name, fset.Position(lit.Pos()), size(lit.Body))
				}
			case *ast.FuncDecl:
				if n.Body != nil && (n.Name.Name == "run" || strings.HasSuffix(n.Name.Name, "Run")) {
					fn(n.Name.Name, fset.Position(n.Pos()), size(n.Body))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestVerbBodiesAreShort(t *testing.T) {
	root := moduleRoot(t)
	n := 0
	verbBodies(t, filepath.Join(root, "cmd"), func(name string, pos token.Position, lines int) {
		n++
		if lines > maxVerbBody {
			rel, _ := filepath.Rel(root, pos.Filename)
			t.Errorf("%s:%d: %s body is %d lines; a verb keeps flags, options and printing (at most %d lines) and calls the library for the rest", rel, pos.Line, name, lines, maxVerbBody)
		}
	})
	// A walk that found no verb would pass whatever cmd/ holds.
	if n < 50 {
		t.Fatalf("found only %d verb bodies under cmd/; the walk is broken", n)
	}
}

// maxFrontShare bounds the front ends' part of the module's non-test Go
// lines, cmd/ and mcp/ counted together: a front end that grows past it
// is keeping logic the other cannot reach, which belongs in app/. It was
// 18.6 % before app/ was made, 16.6 % once the MCP server had its jobs
// and dispatch_wait, and 14.7 % after those, the client config, session
// control and the peer records moved into app/. What is left is mostly
// flags, help text, schemas and printing.
const maxFrontShare = 0.15

// goLines counts the lines of the non-test, non-generated Go files under
// dir, skipping the project-local npm directory.
func goLines(t *testing.T, dir string) int {
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".agents" || d.Name() == "node_modules" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.HasSuffix(path, ".pb.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n += strings.Count(string(b), "\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestFrontEndsAreASmallShareOfTheCode(t *testing.T) {
	root := moduleRoot(t)
	all, cmd, mcp := goLines(t, root), goLines(t, filepath.Join(root, "cmd")), goLines(t, filepath.Join(root, "mcp"))
	if all < 10000 || cmd < 1000 || mcp < 500 {
		t.Fatalf("counted %d lines in all, %d in cmd/ and %d in mcp/; the walk is broken", all, cmd, mcp)
	}
	front := cmd + mcp
	share := float64(front) / float64(all)
	t.Logf("cmd/ and mcp/ hold %d (%d + %d) of %d non-test Go lines (%.1f %%)", front, cmd, mcp, all, 100*share)
	if share >= maxFrontShare {
		t.Errorf("cmd/ and mcp/ hold %d of %d non-test Go lines (%.1f %%), over %.1f %%: move logic into app/, where both front ends call it", front, all, 100*share, 100*maxFrontShare)
	}
}

// sessionsPath is the import path of the sessions package, whose Client
// has one typed method per daemon operation (sessions/ops.go).
const sessionsPath = "github.com/agentproto/agentproto/sessions"

// rawRequests returns the positions in f where a sessions.Request is
// named: a composite literal, new(sessions.Request) or a variable of the
// type. Outside package sessions each is a raw Call(&Request{Op: ...})
// that bypasses the typed methods, so a renamed op or field breaks it
// silently. imports says whether f imports sessions at all.
func rawRequests(fset *token.FileSet, f *ast.File) (found []token.Position, imports bool) {
	name := ""
	for _, imp := range f.Imports {
		if strings.Trim(imp.Path.Value, `"`) != sessionsPath {
			continue
		}
		name = "sessions"
		if imp.Name != nil {
			name = imp.Name.Name
		}
	}
	if name == "" || name == "_" {
		return nil, name != ""
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok && x.Name == name && n.Sel.Name == "Request" {
				found = append(found, fset.Position(n.Pos()))
			}
		case *ast.Ident:
			// A dot import names the type bare.
			if name == "." && n.Name == "Request" {
				found = append(found, fset.Position(n.Pos()))
			}
		}
		return true
	})
	return found, true
}

func TestRawRequestsDetected(t *testing.T) {
	src := `package p

import s "github.com/agentproto/agentproto/sessions"

func f(c *s.Client) { c.Call(&s.Request{Op: s.OpKill, ID: "x"}) }
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	if found, imports := rawRequests(fset, f); !imports || len(found) != 1 {
		t.Fatalf("a raw call under an aliased import: found %v (imports %v), want one", found, imports)
	}
}

func TestNoRawSessionsRequests(t *testing.T) {
	root := moduleRoot(t)
	own := filepath.Join(root, "sessions")
	fset := token.NewFileSet()
	files, importers := 0, 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch {
			case path == own, d.Name() == ".agents", d.Name() == "node_modules", d.Name() == "testdata",
				path != root && strings.HasPrefix(d.Name(), "."):
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		found, imports := rawRequests(fset, f)
		if imports {
			importers++
		}
		for _, pos := range found {
			rel, _ := filepath.Rel(root, pos.Filename)
			t.Errorf("%s:%d: builds a sessions.Request; call the typed method of sessions.Client instead (sessions/ops.go), adding one there if the operation has none", rel, pos.Line)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A walk that parsed nothing, or missed every client of the daemon,
	// would pass whatever the code does.
	if files < 200 || importers < 20 {
		t.Fatalf("parsed %d files, %d importing sessions; the walk is broken", files, importers)
	}
}
