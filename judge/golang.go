package judge

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
)

// Go code is judged from its syntax tree: a test asserts when a failure
// can reach t.Error/Fatal (or an assertion library, or panic) through
// the code that runs — helpers taking the test, subtests, callbacks that
// are called — and not through a table that is empty, a condition that
// is never true, or a callback nobody calls.

// goPkg is one package directory of the head, parsed.
type goPkg struct {
	fset  *token.FileSet
	files map[string]*ast.File // by relative path
	srcs  map[string][]byte    // the text of each file, by relative path
	funcs map[string]*ast.FuncDecl
	vars  map[string]bool // package-level vars of production files
	lits  map[string]bool // basic literals of test files
}

func parseGoDir(root fs.FS, dir string) *goPkg {
	p := &goPkg{fset: token.NewFileSet(), files: map[string]*ast.File{}, srcs: map[string][]byte{}, funcs: map[string]*ast.FuncDecl{}, vars: map[string]bool{}, lits: map[string]bool{}}
	ents, err := fs.ReadDir(root, dir)
	if err != nil {
		return p
	}
	for _, e := range ents {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		rel := path.Join(dir, e.Name())
		src, err := fs.ReadFile(root, rel)
		if err != nil {
			continue
		}
		f, err := parser.ParseFile(p.fset, rel, src, parser.ParseComments)
		if err != nil {
			continue
		}
		p.files[rel], p.srcs[rel] = f, src
		test := strings.HasSuffix(rel, "_test.go")
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					p.funcs[d.Name.Name] = d
				}
			case *ast.GenDecl:
				if d.Tok == token.VAR && !test {
					for _, s := range d.Specs {
						for _, n := range s.(*ast.ValueSpec).Names {
							p.vars[n.Name] = true
						}
					}
				}
			}
		}
		if test {
			ast.Inspect(f, func(n ast.Node) bool {
				if b, ok := n.(*ast.BasicLit); ok {
					p.lits[b.Value] = true
				}
				return true
			})
		}
	}
	return p
}

// goBodies maps each function of a file to the text of its body.
func goBodies(file string) map[string]string {
	src, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	return goBodiesOf(src)
}

func goBodiesOf(src []byte) map[string]string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, 0)
	if err != nil {
		return nil
	}
	m := map[string]string{}
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Body != nil {
			m[fn.Name.Name] = string(src[fset.Position(fn.Body.Pos()).Offset:fset.Position(fn.Body.End()).Offset])
		}
	}
	return m
}

// goFindings judges the Go files the change touched, function by
// function: only functions new or changed since the base are judged.
func goFindings(baseDir, headDir string, changed []string) []Finding {
	// os.Root keeps every read inside the tree, whatever its symlinks say.
	base, err := os.OpenRoot(baseDir)
	if err != nil {
		return nil
	}
	defer base.Close()
	head, err := os.OpenRoot(headDir)
	if err != nil {
		return nil
	}
	defer head.Close()
	return goFindingsFS(base.FS(), head.FS(), changed)
}

// goFindingsFS is goFindings over any two trees: the fuzz target judges
// sources held in memory.
func goFindingsFS(baseFS, headFS fs.FS, changed []string) []Finding {
	var fs []Finding
	pkgs := map[string]*goPkg{}
	for _, rel := range changed {
		if !strings.HasSuffix(rel, ".go") {
			continue
		}
		dir := path.Dir(rel)
		if pkgs[dir] == nil {
			pkgs[dir] = parseGoDir(headFS, dir)
		}
		p := pkgs[dir]
		f := p.files[rel]
		if f == nil {
			continue
		}
		var old map[string]string
		if src, err := fsReadFile(baseFS, rel); err == nil {
			old = goBodiesOf(src)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			body := p.text(rel, fn.Body)
			if b, ok := old[fn.Name.Name]; ok && b == body {
				continue
			}
			at := func(n ast.Node) int { return p.fset.Position(n.Pos()).Line }
			add := func(code string, n ast.Node, why string) {
				fs = append(fs, Finding{Code: code, Severity: "error", File: rel, Line: at(n), Message: why})
			}
			if strings.HasSuffix(rel, "_test.go") {
				p.judgeTest(fn, add)
			} else {
				p.judgeCode(f, fn, add)
			}
		}
	}
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].File < fs[j].File })
	return fs
}

// text is the source of a node of file rel, read once with the file.
func (p *goPkg) text(rel string, n ast.Node) string {
	f := p.fset.File(n.Pos())
	if f == nil {
		return ""
	}
	return string(p.srcs[rel][f.Offset(n.Pos()):f.Offset(n.End())])
}

// fsReadFile is fs.ReadFile, which a variable named fs hides above.
func fsReadFile(root fs.FS, name string) ([]byte, error) { return fs.ReadFile(root, name) }

func (p *goPkg) judgeTest(fn *ast.FuncDecl, add func(string, ast.Node, string)) {
	name := fn.Name.Name
	if name == "TestMain" {
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ExprStmt:
				if c, ok := n.X.(*ast.CallExpr); ok && isSel(c.Fun, "Run") && len(c.Args) == 0 {
					add("gate-masks-failure", n, "TestMain drops the result of m.Run(): failing tests no longer fail the run")
				}
			case *ast.CallExpr:
				if isPkgCall(n, "os", "Exit") && len(n.Args) == 1 && types.ExprString(n.Args[0]) == "0" {
					add("gate-masks-failure", n, "TestMain exits 0 whatever the tests did")
				}
			}
			return true
		})
		return
	}
	if !strings.HasPrefix(name, "Test") || fn.Type.Params.NumFields() != 1 {
		return
	}
	for _, s := range fn.Body.List {
		if e, ok := s.(*ast.ExprStmt); ok {
			if c, ok := e.X.(*ast.CallExpr); ok && (isSel(c.Fun, "Skip") || isSel(c.Fun, "Skipf") || isSel(c.Fun, "SkipNow")) {
				add("test-skipped", s, name+" is skipped whatever the environment: it proves nothing")
			}
		}
	}
	if !p.asserts(fn.Body, tbParams(fn.Type), 0) {
		add("test-no-assertion", fn, name+" cannot fail: no assertion is reached (an empty table, a condition never true, a callback never called, a helper that never fails count as none)")
	}
	p.judgeGolden(fn, add)
	// A test that replaces a production function value and then calls
	// that value tests its own replacement.
	assigned := map[string]bool{}
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				if id, ok := l.(*ast.Ident); ok && p.vars[id.Name] && i < len(n.Rhs) {
					if _, lit := n.Rhs[i].(*ast.FuncLit); lit {
						assigned[id.Name] = true
					}
				}
			}
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && assigned[id.Name] {
				add("mock-of-unit", n, name+" replaces "+id.Name+" and then calls the replacement: the unit under test is never run")
				delete(assigned, id.Name)
			}
		}
		return true
	})
}

// judgeGolden finds a golden file written on every run before it is read:
// the test then compares the code with itself.
func (p *goPkg) judgeGolden(fn *ast.FuncDecl, add func(string, ast.Node, string)) {
	reads := false
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && (isPkgCall(c, "os", "ReadFile") || isPkgCall(c, "ioutil", "ReadFile")) {
			reads = true
		}
		return true
	})
	if !reads {
		return
	}
	for _, s := range fn.Body.List {
		e, ok := s.(*ast.ExprStmt)
		if !ok {
			continue
		}
		if c, ok := e.X.(*ast.CallExpr); ok && (isPkgCall(c, "os", "WriteFile") || isPkgCall(c, "ioutil", "WriteFile")) {
			add("golden-regenerated", s, fn.Name.Name+" rewrites the file it then compares against on every run, not only under -update")
		}
	}
}

var assertMethods = map[string]bool{"Error": true, "Errorf": true, "Fatal": true, "Fatalf": true, "Fail": true, "FailNow": true}
var assertPkgs = map[string]bool{"assert": true, "require": true, "qt": true, "is": true, "must": true, "check": false}

// asserts says whether a failure can be reported from body.
func (p *goPkg) asserts(body *ast.BlockStmt, tbs map[string]bool, depth int) bool {
	if body == nil || depth > 4 {
		return false
	}
	lits := map[string]*ast.FuncLit{}
	empty := map[string]bool{}
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // judged where it is called
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				id, ok := l.(*ast.Ident)
				if !ok || i >= len(n.Rhs) {
					continue
				}
				switch r := n.Rhs[i].(type) {
				case *ast.FuncLit:
					lits[id.Name] = r
				case *ast.CompositeLit:
					if len(r.Elts) == 0 {
						empty[id.Name] = true
					}
				}
			}
		case *ast.IfStmt:
			if neverTrue(n.Cond) {
				if n.Else != nil {
					found = found || p.asserts(&ast.BlockStmt{List: []ast.Stmt{n.Else}}, tbs, depth)
				}
				return false
			}
		case *ast.RangeStmt:
			if c, ok := n.X.(*ast.CompositeLit); ok && len(c.Elts) == 0 {
				return false
			}
			if id, ok := n.X.(*ast.Ident); ok && empty[id.Name] {
				return false
			}
		case *ast.CallExpr:
			if s, ok := n.Fun.(*ast.SelectorExpr); ok {
				if x, ok := s.X.(*ast.Ident); ok && (assertPkgs[x.Name] || tbs[x.Name] && assertMethods[s.Sel.Name]) {
					found = true
					return false
				}
			}
			if id, ok := n.Fun.(*ast.Ident); ok {
				switch {
				case id.Name == "panic":
					found = true
					return false
				case lits[id.Name] != nil:
					if p.asserts(lits[id.Name].Body, withTB(tbs, lits[id.Name].Type), depth+1) {
						found = true
						return false
					}
				case p.funcs[id.Name] != nil && len(tbParams(p.funcs[id.Name].Type)) > 0:
					if p.asserts(p.funcs[id.Name].Body, tbParams(p.funcs[id.Name].Type), depth+1) {
						found = true
						return false
					}
				}
			}
			for _, a := range n.Args {
				if fl, ok := a.(*ast.FuncLit); ok && p.asserts(fl.Body, withTB(tbs, fl.Type), depth+1) {
					found = true
					return false
				}
			}
		}
		return true
	})
	return found
}

// tbParams names the parameters of a function that are tests: *testing.T,
// *testing.B, *testing.F, testing.TB.
func tbParams(ft *ast.FuncType) map[string]bool {
	m := map[string]bool{}
	for _, f := range ft.Params.List {
		switch types.ExprString(f.Type) {
		case "*testing.T", "*testing.B", "*testing.F", "testing.TB":
			for _, n := range f.Names {
				m[n.Name] = true
			}
		}
	}
	return m
}

// withTB is the outer test names plus a callback's own.
func withTB(outer map[string]bool, ft *ast.FuncType) map[string]bool {
	m := tbParams(ft)
	for k := range outer {
		m[k] = true
	}
	return m
}

// neverTrue recognises conditions that cannot hold: x != x, x < x, false.
func neverTrue(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.ParenExpr:
		return neverTrue(e.X)
	case *ast.Ident:
		return e.Name == "false"
	case *ast.BinaryExpr:
		switch e.Op {
		case token.NEQ, token.LSS, token.GTR:
			return types.ExprString(e.X) == types.ExprString(e.Y)
		case token.LAND:
			return neverTrue(e.X) || neverTrue(e.Y)
		}
	}
	return false
}

func isSel(e ast.Expr, name string) bool {
	s, ok := e.(*ast.SelectorExpr)
	return ok && s.Sel.Name == name
}

func isPkgCall(c *ast.CallExpr, pkg, name string) bool {
	s, ok := c.Fun.(*ast.SelectorExpr)
	if !ok || s.Sel.Name != name {
		return false
	}
	x, ok := s.X.(*ast.Ident)
	return ok && x.Name == pkg
}
