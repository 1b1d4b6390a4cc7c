package judge

import (
	"bytes"
	"context"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// Mutation smoke: each production Go function the change touched gets a
// few small mutants — its body returning zero values, its first condition
// negated, its first statement dropped — in the review's own copy of the
// head (never a worktree). The package's tests run against each; a
// function whose every mutant survives is untested, whatever its tests
// claim. The whole is bounded by a budget; what the budget does not reach
// is left unjudged, and said so.
//
// A mutant must build to say anything: imports it leaves unused are
// pruned, and one that still does not build is left out, never counted
// as killed (a function whose every mutant breaks the build is not
// thereby tested).

type mutant struct {
	what  string
	apply func(fn *ast.FuncDecl) bool // false: this mutation does not apply
}

var mutants = []mutant{
	{"its body returns zero values", func(fn *ast.FuncDecl) bool {
		fn.Body.List = []ast.Stmt{zeroReturn(fn)}
		return true
	}},
	{"its first condition is negated", func(fn *ast.FuncDecl) bool {
		done := false
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			if i, ok := n.(*ast.IfStmt); ok && !done {
				i.Cond = &ast.UnaryExpr{Op: token.NOT, X: &ast.ParenExpr{X: i.Cond}}
				done = true
			}
			return !done
		})
		return done
	}},
	{"its first statement is dropped", func(fn *ast.FuncDecl) bool {
		if len(fn.Body.List) < 2 {
			return false
		}
		fn.Body.List = fn.Body.List[1:]
		return true
	}},
}

// zeroReturn returns the zero value of each result, by name when the
// results are named.
func zeroReturn(fn *ast.FuncDecl) ast.Stmt {
	r := &ast.ReturnStmt{}
	if fn.Type.Results == nil {
		return r
	}
	for _, f := range fn.Type.Results.List {
		n := len(f.Names)
		if n == 0 {
			n = 1
		}
		for i := 0; i < n; i++ {
			r.Results = append(r.Results, zeroOf(f.Type))
		}
	}
	return r
}

func zeroOf(t ast.Expr) ast.Expr {
	switch t := t.(type) {
	case *ast.Ident:
		switch t.Name {
		case "string":
			return &ast.BasicLit{Kind: token.STRING, Value: `""`}
		case "bool":
			return ast.NewIdent("false")
		case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "uintptr", "float32", "float64", "byte", "rune":
			return &ast.BasicLit{Kind: token.INT, Value: "0"}
		case "error", "any":
			return ast.NewIdent("nil")
		}
		return &ast.CompositeLit{Type: t} // a struct type of the package
	case *ast.StarExpr, *ast.ArrayType, *ast.MapType, *ast.FuncType, *ast.InterfaceType, *ast.ChanType:
		if a, ok := t.(*ast.ArrayType); ok && a.Len != nil {
			return &ast.CompositeLit{Type: t}
		}
		return ast.NewIdent("nil")
	}
	return &ast.CompositeLit{Type: t}
}

// mutationSmoke runs the mutants of the changed production functions of
// a Go module in headDir, within budget.
func mutationSmoke(ctx context.Context, baseDir, headDir string, changed []string, budget time.Duration) ([]Finding, time.Duration) {
	var fs []Finding
	if budget <= 0 {
		return nil, 0
	}
	if _, err := os.Stat(filepath.Join(headDir, "go.mod")); err != nil {
		return nil, 0
	}
	start := time.Now()
	deadline := start.Add(budget)
	for _, rel := range changed {
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			continue
		}
		file := filepath.Join(headDir, rel)
		orig, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		old := goBodies(filepath.Join(baseDir, rel))
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, file, orig, parser.ParseComments)
		if err != nil {
			continue
		}
		for i, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil || len(fn.Body.List) == 0 {
				continue
			}
			if b, ok := old[fn.Name.Name]; ok && b == string(orig[fset.Position(fn.Body.Pos()).Offset:fset.Position(fn.Body.End()).Offset]) {
				continue
			}
			tried, survived := 0, 0
			for _, m := range mutants {
				if time.Now().After(deadline) {
					fs = append(fs, Finding{Code: "mutation-budget", Severity: "warning", File: rel, Message: "the mutation budget ran out before " + fn.Name.Name + " was judged"})
					if err := os.WriteFile(file, orig, 0o644); err != nil {
						fs = append(fs, Finding{Code: "mutation-restore", Severity: "warning", File: rel, Message: err.Error()})
					}
					return fs, time.Since(start)
				}
				g, err := parser.ParseFile(token.NewFileSet(), file, orig, parser.ParseComments)
				if err != nil {
					break
				}
				mfn := g.Decls[i].(*ast.FuncDecl)
				if !m.apply(mfn) {
					continue
				}
				pruneImports(g, selected(f))
				var buf bytes.Buffer
				if printer.Fprint(&buf, token.NewFileSet(), g) != nil || os.WriteFile(file, buf.Bytes(), 0o644) != nil {
					continue
				}
				switch mutantOutcome(ctx, headDir, path.Dir(rel), deadline) {
				case mutantSurvived:
					tried++
					survived++
				case mutantKilled:
					tried++
				}
			}
			if err := os.WriteFile(file, orig, 0o644); err != nil {
				return fs, time.Since(start)
			}
			if tried > 0 && survived == tried {
				fs = append(fs, Finding{Code: "untested", Severity: "error", File: rel, Line: fset.Position(fn.Pos()).Line,
					Message: fn.Name.Name + " is untested: every mutant (zero returns, negated condition, dropped statement) passes its package's tests"})
			}
		}
	}
	return fs, time.Since(start)
}

type outcome int

const (
	mutantKilled outcome = iota
	mutantSurvived
	mutantUnbuilt // or unjudged: the bound ended it
)

// mutantOutcome runs the package's tests on the mutated copy. A mutant
// that does not build, or that the bound ended, says nothing.
func mutantOutcome(ctx context.Context, dir, pkg string, deadline time.Time) outcome {
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	var out bytes.Buffer
	r := runJudged(ctx, dir, []string{"GOFLAGS="}, nil, &out, "go", "test", "-count=1", "-failfast", "./"+pkg)
	switch {
	case r.TimedOut || bytes.Contains(out.Bytes(), []byte("[build failed]")) || bytes.Contains(out.Bytes(), []byte("[setup failed]")):
		return mutantUnbuilt
	case r.ExitCode == 0:
		return mutantSurvived
	}
	return mutantKilled
}

// selected is the set of names used as X in X.Sel in f.
func selected(f *ast.File) map[string]bool {
	used := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if s, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := s.X.(*ast.Ident); ok {
				used[id.Name] = true
			}
		}
		return true
	})
	return used
}

// pruneImports drops the imports the original used and the mutant no
// longer does, so that replacing a body by its zero values still builds.
// An import whose name cannot be told from its path is kept: a wrong
// guess only leaves the mutant unbuilt.
func pruneImports(f *ast.File, before map[string]bool) {
	after := selected(f)
	var kept []*ast.ImportSpec
	decls := f.Decls[:0]
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.IMPORT {
			decls = append(decls, d)
			continue
		}
		specs := g.Specs[:0]
		for _, s := range g.Specs {
			is := s.(*ast.ImportSpec)
			if name := importName(is); !before[name] || after[name] {
				specs = append(specs, is)
				kept = append(kept, is)
			}
		}
		if g.Specs = specs; len(specs) > 0 {
			decls = append(decls, g)
		}
	}
	f.Decls, f.Imports = decls, kept
}

// importName is the name an import is used by: its alias, else the last
// element of its path (a major version suffix such as /v3 skipped).
func importName(is *ast.ImportSpec) string {
	if is.Name != nil {
		return is.Name.Name
	}
	p := strings.Trim(is.Path.Value, "`\"")
	parts := strings.Split(p, "/")
	last := parts[len(parts)-1]
	if len(parts) > 1 && len(last) > 1 && last[0] == 'v' && strings.Trim(last[1:], "0123456789") == "" {
		last = parts[len(parts)-2]
	}
	if i := strings.Index(last, ".v"); i > 0 {
		last = last[:i] // gopkg.in/yaml.v3
	}
	return strings.TrimPrefix(strings.TrimSuffix(last, ".go"), "go-")
}
