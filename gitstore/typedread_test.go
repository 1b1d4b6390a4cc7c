package gitstore

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// byteSearches are the calls that select by matching bytes.
var byteSearches = map[string]bool{"Contains": true, "ContainsAny": true, "Index": true, "LastIndex": true,
	"Count": true, "HasPrefix": true, "HasSuffix": true, "Cut": true, "CutPrefix": true, "CutSuffix": true,
	"EqualFold": true, "Split": true, "MustCompile": true, "Compile": true, "New": true, "MatchString": true, "Match": true}

// Events are read by their decoded kind, typed: no code selects them by
// matching envelope bytes, and no package but gitstore decodes envelopes
// itself (a reader of its own would disagree with the index on what an
// envelope says). This reads every non-test Go file of the module.
func TestNoReaderMatchesEnvelopeBytes(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		for _, p := range checkReaderFile(t, path, rel) {
			t.Errorf("%s", p)
		}
		checked++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("checked only %d files under %s; the walk is broken", checked, root)
	}
}

// checkReaderFile returns the typed-read rules the file breaks.
func checkReaderFile(t *testing.T, path, rel string) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	inGitstore := strings.HasPrefix(rel, "gitstore/")
	var problems []string
	report := func(n ast.Node, msg string) {
		problems = append(problems, fset.Position(n.Pos()).String()+": "+msg)
	}
	// Names bound to a needle built from the kind field, such as
	// needle := []byte(`"kind":"` + k + `"`).
	needles := map[*ast.Object]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for i, lhs := range n.Lhs {
				if id, ok := lhs.(*ast.Ident); ok && id.Obj != nil && i < len(n.Rhs) && mentionsKind(n.Rhs[i], nil) {
					needles[id.Obj] = true
				}
			}
		case *ast.ValueSpec:
			for i, id := range n.Names {
				if id.Obj != nil && i < len(n.Values) && mentionsKind(n.Values[i], nil) {
					needles[id.Obj] = true
				}
			}
		}
		return true
	})
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			// The positional scanner of canonical envelopes is the one
			// place that reads the kind field from bytes.
			if byteSearches[sel.Sel.Name] && rel != "gitstore/fastdecode.go" {
				for _, a := range n.Args {
					if mentionsKind(a, needles) {
						report(n, sel.Sel.Name+" matches bytes against the kind field; read events with Ledger.Events and compare e.Kind")
						break
					}
				}
			}
			// ledger log and its MCP tool ledger_log print envelopes as stored.
			if (sel.Sel.Name == "Envelope" || sel.Sel.Name == "Envelopes") && !inGitstore && !strings.HasPrefix(rel, "cmd/ledger/") && rel != "app/ledger.go" {
				report(n, sel.Sel.Name+" outside ledger log: read the decoded event's fields (Ledger.Events) instead")
			}
		case *ast.ValueSpec:
			if !inGitstore && isGitstoreEvent(n.Type) {
				report(n, "declares a gitstore.Event value: envelopes are decoded only by gitstore (use Ledger.Events)")
			}
		case *ast.CompositeLit:
			if !inGitstore && isGitstoreEvent(n.Type) {
				report(n, "builds a gitstore.Event: envelopes are decoded only by gitstore (use Ledger.Events)")
			}
		}
		return true
	})
	return problems
}

func isGitstoreEvent(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && x.Name == "gitstore" && sel.Sel.Name == "Event"
}

// mentionsKind reports whether an expression is built from a string
// literal holding the JSON key "kind", or from a needle bound to one.
func mentionsKind(e ast.Expr, needles map[*ast.Object]bool) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BasicLit:
			if n.Kind == token.STRING {
				if s, err := strconv.Unquote(n.Value); err == nil && strings.Contains(s, `"kind"`) {
					found = true
				}
			}
		case *ast.Ident:
			if n.Obj != nil && needles[n.Obj] {
				found = true
			}
		}
		return !found
	})
	return found
}
