package judge

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/dop251/goja/ast"
)

// JS/TS is judged from its syntax tree, test by test: the assertions a
// test reaches (through callbacks it passes, helpers it calls, functions
// it names and calls — not one it defines and never calls, nor a table
// that is empty), assertions that cannot fail, and catches that drop what
// they catch. Only what is new or changed since the base is judged.

func isJS(p string) bool {
	switch filepath.Ext(p) {
	case ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx":
		return true
	}
	return false
}

func jsFindings(baseDir, headDir string, changed []string) []Finding {
	var fs []Finding
	var async map[string]bool // read once, when a test changed
	for _, rel := range changed {
		if !isJS(rel) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(headDir, rel))
		if err != nil {
			continue
		}
		var old []byte
		if lst, err := os.Lstat(filepath.Join(baseDir, rel)); err == nil && lst.Mode().IsRegular() {
			old, _ = os.ReadFile(filepath.Join(baseDir, rel))
		}
		if async == nil && isTestFile(rel) {
			async = jsAsyncNames(headDir)
		}
		fs = append(fs, jsJudgeWith(rel, old, b, async)...)
	}
	return fs
}

// jsJudge judges one file, head against its base (nil when new). A file
// that does not parse is left to the gate: it cannot run either.
func jsJudge(rel string, old, src []byte) []Finding { return jsJudgeWith(rel, old, src, nil) }

// jsJudgeWith is jsJudge knowing the async functions of the code.
func jsJudgeWith(rel string, old, src []byte, async map[string]bool) []Finding {
	f, err := parseJS(rel, src)
	if err != nil {
		return nil
	}
	oldJS := ""
	if of, err := parseJS(rel, old); err == nil && old != nil {
		oldJS = of.src
	}
	j := &jsJudgement{f: f, rel: rel, old: oldJS, funcs: map[string]ast.Node{}, async: async}
	for _, st := range f.prog.Body {
		if d, ok := st.(*ast.FunctionDeclaration); ok && d.Function.Name != nil && d.Function.Body != nil {
			j.funcs[string(d.Function.Name.Name)] = d.Function.Body
		}
	}
	j.judge(isTestFile(rel))
	return j.fs
}

type jsJudgement struct {
	f     *jsFile
	rel   string
	old   string              // the base's JavaScript, "" when new
	funcs map[string]ast.Node // top-level function declarations: helpers
	async map[string]bool     // the code's async functions (jsAsyncNames)
	fs    []Finding
}

func (j *jsJudgement) add(code string, n ast.Node, why string) {
	j.fs = append(j.fs, Finding{Code: code, Severity: "error", File: j.rel, Line: j.f.line(n), Message: why})
}

// unchanged: the base has this exact code.
func (j *jsJudgement) unchanged(n ast.Node) bool {
	t := j.f.text(n)
	return j.old != "" && t != "" && strings.Contains(j.old, t)
}

func (j *jsJudgement) judge(test bool) {
	jsWalk(j.f.prog, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.TryStatement:
			if n.Catch != nil && len(n.Catch.Body.List) == 0 && !j.unchanged(n) {
				j.add("error-swallowed", n.Catch, "a catch drops what it caught: the failure no longer surfaces")
			} else if test && n.Catch != nil && !j.unchanged(n) && j.reaches(n.Body, 0, nil) && !jsRethrows(n.Catch.Body) {
				j.add("assertion-swallowed", n, "an assertion's failure is caught and dropped: the test passes whatever the code does")
			}
		case *ast.CallExpression:
			if jsDropsRejection(n) && !j.unchanged(n) {
				j.add("error-swallowed", n, "a catch drops what it caught: the failure no longer surfaces")
			}
			if test {
				if name, body, table, ok := jsTestCall(n); ok && !j.unchanged(n) {
					j.judgeTest(n, name, body, table)
					j.judgeTestTricks(n.ArgumentList[len(n.ArgumentList)-1], body)
				}
			}
		}
		if test {
			j.judgeFileTricks(n)
		}
		return true
	})
}

// judgeTest judges one test(...)/it(...) call whose body is body.
func (j *jsJudgement) judgeTest(call *ast.CallExpression, name string, body ast.Node, table ast.Expression) {
	jsWalk(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpression:
			if ok, sure := jsAsserts(n); ok && !sure {
				j.add("assertion-cannot-fail", n, "this assertion cannot fail")
			}
		case *ast.ExpressionStatement:
			if c, ok := n.Expression.(*ast.CallExpression); ok && jsIdent(c.Callee, "expect") {
				j.add("assertion-cannot-fail", n, "expect(...) with no matcher asserts nothing")
			}
		}
		return true
	})
	if a, ok := table.(*ast.ArrayLiteral); ok && len(a.Value) == 0 {
		j.add("test-no-assertion", call, name+" runs over an empty table: no case runs")
		return
	}
	if !j.reaches(body, 0, nil) {
		j.add("test-no-assertion", call, name+" asserts nothing that can fail (a callback never called or a helper that never fails counts as none)")
	}
}

// reaches says whether a failure can be raised from n: an assertion that
// can fail or a throw, in n, in a callback it passes, in a function it
// names and calls, or in a helper declared at the top of the file.
func (j *jsJudgement) reaches(n ast.Node, depth int, inherited map[string]ast.Node) bool {
	if n == nil || depth > 4 {
		return false
	}
	// Functions this body binds to a name count only if it calls them.
	named := map[string]ast.Node{}
	for k, v := range inherited {
		named[k] = v
	}
	jsWalk(n, func(m ast.Node) bool {
		switch m := m.(type) {
		case *ast.Binding:
			if id, ok := m.Target.(*ast.Identifier); ok {
				if b := jsFunc(m.Initializer); b != nil {
					named[string(id.Name)] = b
				}
			}
		case *ast.FunctionDeclaration:
			if m.Function.Name != nil && m.Function.Body != nil {
				named[string(m.Function.Name.Name)] = m.Function.Body
			}
		}
		return true
	})
	found := false
	jsWalk(n, func(m ast.Node) bool {
		if found {
			return false
		}
		switch m := m.(type) {
		case *ast.FunctionLiteral, *ast.ArrowFunctionLiteral, *ast.FunctionDeclaration:
			return false // judged where it is called or passed
		case *ast.Binding:
			if jsFunc(m.Initializer) != nil {
				return false
			}
		case *ast.ThrowStatement:
			found = true
		case *ast.CallExpression:
			if ok, sure := jsAsserts(m); ok && sure {
				found = true
				return false
			}
			if id, ok := m.Callee.(*ast.Identifier); ok {
				body := named[string(id.Name)]
				if body == nil {
					body = j.funcs[string(id.Name)]
				}
				if body != nil && j.reaches(body, depth+1, named) {
					found = true
					return false
				}
			}
			for _, a := range m.ArgumentList {
				if b := jsFunc(a); b != nil && j.reaches(b, depth+1, named) {
					found = true
					return false
				}
			}
		}
		return true
	})
	return found
}

// jsTestCall recognises test("name", fn), it(...), test.only(...),
// test.each(table)("name", fn) and describe-free variants; it gives the
// test's name, the body of its function and its table, if any.
func jsTestCall(c *ast.CallExpression) (string, ast.Node, ast.Expression, bool) {
	var table ast.Expression
	callee := c.Callee
	if inner, ok := callee.(*ast.CallExpression); ok { // test.each(table)(...)
		root, names := jsChain(inner.Callee)
		if len(names) != 1 || names[0] != "each" || !(jsIdent(root, "test") || jsIdent(root, "it")) || len(inner.ArgumentList) == 0 {
			return "", nil, nil, false
		}
		table, callee = inner.ArgumentList[0], root
	}
	root, names := jsChain(callee)
	if !(jsIdent(root, "test") || jsIdent(root, "it")) {
		return "", nil, nil, false
	}
	for _, n := range names {
		if n != "only" && n != "concurrent" {
			return "", nil, nil, false // skip and todo do not run; the comparison of runs sees them
		}
	}
	if len(c.ArgumentList) < 2 {
		return "", nil, nil, false
	}
	name := ""
	switch s := c.ArgumentList[0].(type) {
	case *ast.StringLiteral:
		name = string(s.Value)
	case *ast.TemplateLiteral:
		for _, e := range s.Elements {
			name += string(e.Parsed)
		}
	default:
		return "", nil, nil, false
	}
	body := jsFunc(c.ArgumentList[len(c.ArgumentList)-1])
	if body == nil {
		return "", nil, nil, false
	}
	return name, body, table, true
}

// jsAsserts says whether a call is an assertion, and whether it can
// fail: assert(...), assert.x(...), t.assert.x(...), expect(...).toX(...)
// (with not/resolves/rejects), chai's expect(...).to..., x.should....
func jsAsserts(c *ast.CallExpression) (isAssert, canFail bool) {
	root, names := jsChain(c.Callee)
	args := c.ArgumentList
	switch {
	case jsIdent(root, "assert") || jsHas(names[:max(len(names)-1, 0)], "assert"):
		last := ""
		if len(names) > 0 {
			last = names[len(names)-1]
		}
		if (last == "" || last == "ok") && len(args) >= 1 && jsTruthy(args[0]) {
			return true, false
		}
		switch last {
		case "equal", "strictEqual", "deepEqual", "deepStrictEqual":
			if len(args) >= 2 && jsSame(args[0], args[1]) {
				return true, false
			}
		}
		return true, true
	case jsHas(names, "should"):
		return true, true
	}
	e, ok := root.(*ast.CallExpression)
	if !ok || !jsIdent(e.Callee, "expect") || len(names) == 0 {
		return false, false
	}
	m := names[len(names)-1]
	if !strings.HasPrefix(m, "to") && !jsHas(names, "to") {
		return false, false
	}
	if m == "toBeDefined" && !jsHas(names, "not") {
		return true, false
	}
	if (m == "toBe" || m == "toEqual" || m == "toStrictEqual") && len(e.ArgumentList) == 1 && len(args) == 1 && jsSame(e.ArgumentList[0], args[0]) {
		return true, false
	}
	return true, true
}

func jsHas(names []string, n string) bool {
	for _, x := range names {
		if x == n {
			return true
		}
	}
	return false
}

// jsTruthy: a literal that is always true.
func jsTruthy(e ast.Expression) bool {
	switch l := e.(type) {
	case *ast.BooleanLiteral:
		return l.Value
	case *ast.NumberLiteral:
		return l.Literal != "0"
	case *ast.StringLiteral:
		return l.Value != ""
	case *ast.ObjectLiteral, *ast.ArrayLiteral:
		return true
	}
	return false
}

// jsSame: two operands that are the same literal or name.
func jsSame(a, b ast.Expression) bool {
	switch x := a.(type) {
	case *ast.Identifier:
		y, ok := b.(*ast.Identifier)
		return ok && x.Name == y.Name
	case *ast.NumberLiteral:
		y, ok := b.(*ast.NumberLiteral)
		return ok && x.Literal == y.Literal
	case *ast.StringLiteral:
		y, ok := b.(*ast.StringLiteral)
		return ok && x.Value == y.Value
	case *ast.BooleanLiteral:
		y, ok := b.(*ast.BooleanLiteral)
		return ok && x.Value == y.Value
	}
	return false
}

// jsDropsRejection: p.catch(() => {}), p.catch(e => undefined|null).
func jsDropsRejection(c *ast.CallExpression) bool {
	_, names := jsChain(c.Callee)
	if len(names) == 0 || names[len(names)-1] != "catch" || len(c.ArgumentList) != 1 {
		return false
	}
	switch b := jsFunc(c.ArgumentList[0]).(type) {
	case *ast.BlockStatement:
		return len(b.List) == 0
	case *ast.NullLiteral:
		return true
	case *ast.Identifier:
		return b.Name == "undefined"
	}
	return false
}

// jsRethrows: a catch body that throws or asserts again.
func jsRethrows(body ast.Node) bool {
	found := false
	jsWalk(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ThrowStatement:
			found = true
		case *ast.CallExpression:
			if ok, _ := jsAsserts(n); ok {
				found = true
			}
		}
		return !found
	})
	return found
}
