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
