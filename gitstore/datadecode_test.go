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

// No package outside gitstore decodes an event's data from its bytes: a
// feature reads its payloads through its declared kinds (Fold, Kind.Decode),
// so one place knows each kind's type and the kind decoded is the kind the
// envelope names. This reads every non-test Go file of the module.
func TestNoPackageOutsideGitstoreDecodesEventData(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || rel == "gitstore") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range dataDecodes(fset, f) {
			t.Errorf("%s: %s", rel, p)
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

// The check finds the shapes features used before typed events, and
// leaves typed reads alone.
func TestDataDecodeCheckFindsRawDecodes(t *testing.T) {
	const head = "package p\nimport (\n\t\"encoding/json\"\n\tgs \"github.com/agentproto/agentproto/gitstore\"\n)\n"
	for _, c := range []struct {
		name, src string
		want      int
	}{
		{"callback", `func f(l *gs.Ledger) { l.Each(gs.Query{}, func(e *gs.Event) error { var v T; json.Unmarshal(e.Data, &v); return nil }) }`, 1},
		{"range", `func f(l gs.Store) { for e, _ := range l.Events(gs.Query{}) { var v T; _ = json.Unmarshal(e.Data, &v) } }`, 1},
		{"get", `func f(l gs.Store) { e, _, _ := l.Get("x"); var v T; json.Unmarshal([]byte(e.Data), &v) }`, 1},
		{"decoder", `func f(e gs.Event) { json.NewDecoder(bytes.NewReader(e.Data)).Decode(nil) }`, 1},
		{"copied", `func f(e *gs.Event) { b := e.Data; var v T; json.Unmarshal(b, &v) }`, 1},
		{"typed", `func f(l gs.Store) { gs.Fold(l, &s, gs.On(k, func(s *S, e *gs.Event, d D) { _ = d })) }`, 0},
		{"other data", `func f(r *Resp) { var v T; json.Unmarshal(r.Data, &v) }`, 0},
	} {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, c.name+".go", head+c.src+"\n", 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := dataDecodes(fset, f); len(got) != c.want {
			t.Errorf("%s: found %q, want %d", c.name, got, c.want)
		}
	}
}

// dataDecodes returns where a file hands an event's data to encoding/json
// to decode. Events are the values declared as gitstore.Event (or a
// pointer to one), the keys of a range over Events, and the first result
// of a three-valued Get; a name bound to an event's Data counts as the data.
func dataDecodes(fset *token.FileSet, f *ast.File) []string {
	gs, js := "", ""
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		switch path {
		case "github.com/agentproto/agentproto/gitstore":
			gs = name
		case "encoding/json":
			js = name
		}
	}
	if js == "" {
		return nil
	}
	events, data := map[*ast.Object]bool{}, map[*ast.Object]bool{}
	isEventType := func(e ast.Expr) bool {
		if s, ok := e.(*ast.StarExpr); ok {
			e = s.X
		}
		sel, ok := e.(*ast.SelectorExpr)
		if !ok || gs == "" {
			return false
		}
		x, ok := sel.X.(*ast.Ident)
		return ok && x.Name == gs && sel.Sel.Name == "Event"
	}
	isData := func(e ast.Expr) bool {
		found := false
		ast.Inspect(e, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && x.Obj != nil && events[x.Obj] && n.Sel.Name == "Data" {
					found = true
				}
			case *ast.Ident:
				if n.Obj != nil && data[n.Obj] {
					found = true
				}
			}
			return !found
		})
		return found
	}
	calls := func(e ast.Expr, name string) bool {
		c, ok := e.(*ast.CallExpr)
		if !ok {
			return false
		}
		sel, ok := c.Fun.(*ast.SelectorExpr)
		return ok && sel.Sel.Name == name
	}
	var problems []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Field:
			if isEventType(n.Type) {
				for _, id := range n.Names {
					events[id.Obj] = true
				}
			}
		case *ast.ValueSpec:
			if n.Type != nil && isEventType(n.Type) {
				for _, id := range n.Names {
					events[id.Obj] = true
				}
			}
		case *ast.RangeStmt:
			if id, ok := n.Key.(*ast.Ident); ok && id.Obj != nil && calls(n.X, "Events") {
				events[id.Obj] = true
			}
		case *ast.AssignStmt:
			if len(n.Lhs) == 3 && len(n.Rhs) == 1 && calls(n.Rhs[0], "Get") {
				if id, ok := n.Lhs[0].(*ast.Ident); ok && id.Obj != nil {
					events[id.Obj] = true
				}
			}
			for i, lhs := range n.Lhs {
				if id, ok := lhs.(*ast.Ident); ok && id.Obj != nil && len(n.Lhs) == len(n.Rhs) && isData(n.Rhs[i]) {
					data[id.Obj] = true
				}
			}
		case *ast.CallExpr:
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); !ok || x.Name != js || (sel.Sel.Name != "Unmarshal" && sel.Sel.Name != "NewDecoder") {
				return true
			}
			if len(n.Args) > 0 && isData(n.Args[0]) {
				problems = append(problems, fset.Position(n.Pos()).String()+": json."+sel.Sel.Name+
					" decodes an event's data from its bytes; read it through the kind's typed payload (gitstore.Fold, Kind.Decode)")
			}
		}
		return true
	})
	return problems
}
