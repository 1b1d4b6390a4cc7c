package judge

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// The Go judge's reading of production code changed beside the tests:
// errors that no longer surface, stubs, and code that knows the tests.

// judgeCode looks in a production function for errors that no longer
// surface, stubs, and code that knows the tests.
func (p *goPkg) judgeCode(f *ast.File, fn *ast.FuncDecl, add func(string, ast.Node, string)) {
	name := fn.Name.Name
	returnsErr := false
	if r := fn.Type.Results; r != nil && len(r.List) > 0 {
		returnsErr = types.ExprString(r.List[len(r.List)-1].Type) == "error"
	}
	params := map[string]bool{}
	for _, f := range fn.Type.Params.List {
		for _, n := range f.Names {
			params[n.Name] = true
		}
	}
	if isStub(f, fn) {
		add("not-implemented", fn, name+" is a stub: its body does nothing the name promises")
	}
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if len(n.Lhs) >= 2 && len(n.Rhs) == 1 && types.ExprString(n.Lhs[len(n.Lhs)-1]) == "_" {
				if _, call := n.Rhs[0].(*ast.CallExpr); call {
					add("error-swallowed", n, "the error of "+types.ExprString(n.Rhs[0].(*ast.CallExpr).Fun)+" is thrown away: its failure no longer surfaces")
				}
			}
		case *ast.ExprStmt:
			if c, ok := n.X.(*ast.CallExpr); ok {
				if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "recover" {
					add("error-swallowed", n, "a panic is recovered and dropped: the crash it reports disappears")
				}
			}
		case *ast.IfStmt:
			if returnsErr && types.ExprString(n.Cond) == "err != nil" {
				for _, s := range n.Body.List {
					if r, ok := s.(*ast.ReturnStmt); ok && len(r.Results) > 0 && types.ExprString(r.Results[len(r.Results)-1]) == "nil" {
						add("error-swallowed", r, name+" returns nil right after a call failed: the error no longer surfaces")
					}
				}
			}
			if b, ok := n.Cond.(*ast.BinaryExpr); ok && b.Op == token.EQL {
				id, _ := b.X.(*ast.Ident)
				lit, _ := b.Y.(*ast.BasicLit)
				if id != nil && lit != nil && params[id.Name] && !zeroLit(lit.Value) && p.lits[lit.Value] {
					for _, s := range n.Body.List {
						if r, ok := s.(*ast.ReturnStmt); ok && len(r.Results) == 1 {
							if rl, ok := r.Results[0].(*ast.BasicLit); ok && p.lits[rl.Value] {
								add("hard-coded-expected", n, name+" answers the test's input "+lit.Value+" with the test's expected "+rl.Value)
							}
						}
					}
				}
			}
		case *ast.BasicLit:
			if n.Kind == token.STRING && (strings.Contains(n.Value, "testdata/") || strings.Contains(n.Value, ".golden")) {
				add("reads-test-fixture", n, name+" reads "+n.Value+", a test fixture: production code follows the test's data")
			}
		}
		return true
	})
}

func zeroLit(v string) bool { return v == "0" || v == `""` || v == "``" || v == "0.0" }

// isStub: a body that only panics with a not-implemented message, or only
// returns zero values under a TODO.
func isStub(f *ast.File, fn *ast.FuncDecl) bool {
	l := fn.Body.List
	if len(l) == 1 {
		if e, ok := l[0].(*ast.ExprStmt); ok {
			if c, ok := e.X.(*ast.CallExpr); ok {
				if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "panic" && len(c.Args) == 1 {
					m := strings.ToLower(types.ExprString(c.Args[0]))
					return strings.Contains(m, "implement") || strings.Contains(m, "todo")
				}
			}
		}
	}
	if len(l) == 0 {
		return false
	}
	for _, s := range l {
		r, ok := s.(*ast.ReturnStmt)
		if !ok {
			return false
		}
		for _, e := range r.Results {
			if v := types.ExprString(e); !zeroLit(v) && v != "nil" && v != "false" {
				return false
			}
		}
	}
	for _, cg := range f.Comments {
		if cg.Pos() > fn.Body.Lbrace && cg.End() < fn.Body.Rbrace {
			t := strings.ToLower(cg.Text())
			if strings.Contains(t, "todo") || strings.Contains(t, "fixme") || strings.Contains(t, "implement") {
				return true
			}
		}
	}
	return false
}
