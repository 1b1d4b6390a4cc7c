package judge

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/token"
)

// The tricks that make node's test runner pass whatever the code does,
// read from the test's syntax tree: an assertion given the expected value
// as its message, a loose deepEqual, an assertion on a promise never
// awaited, done() called before the assertion runs, the unit faked in
// require.cache, and a process.exit(0) that ends the run before its
// failures are reported.

// jsAsyncNames are the names of the async functions the tree's code
// (not its tests) declares at the top of a file, less any name also
// declared as a plain function: a call of one without await is a promise.
func jsAsyncNames(dir string) map[string]bool {
	async, plain := map[string]bool{}, map[string]bool{}
	hasFile(dir, func(p string) bool {
		if !isJS(p) || isTestFile(p) || strings.HasSuffix(p, ".d.ts") {
			return false
		}
		b, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil || len(b) > 1<<20 {
			return false
		}
		f, err := parseJS(p, b)
		if err != nil {
			return false
		}
		for _, st := range f.prog.Body {
			for name, isAsync := range jsDeclaredFuncs(st) {
				if isAsync {
					async[name] = true
				} else {
					plain[name] = true
				}
			}
		}
		return false
	})
	for n := range plain {
		delete(async, n)
	}
	return async
}

// jsDeclaredFuncs names the functions a top-level statement declares,
// each with whether it is async.
func jsDeclaredFuncs(st ast.Statement) map[string]bool {
	m := map[string]bool{}
	bind := func(list []*ast.Binding) {
		for _, b := range list {
			id, ok := b.Target.(*ast.Identifier)
			if !ok {
				continue
			}
			switch f := b.Initializer.(type) {
			case *ast.FunctionLiteral:
				m[string(id.Name)] = f.Async
			case *ast.ArrowFunctionLiteral:
				m[string(id.Name)] = f.Async
			}
		}
	}
	switch d := st.(type) {
	case *ast.FunctionDeclaration:
		if d.Function.Name != nil {
			m[string(d.Function.Name.Name)] = d.Function.Async
		}
	case *ast.VariableStatement:
		bind(d.List)
	case *ast.LexicalDeclaration:
		bind(d.List)
	}
	return m
}

// judgeFileTricks finds, anywhere in a test file, the unit faked in
// require.cache and an exit that ends the run with success.
func (j *jsJudgement) judgeFileTricks(n ast.Node) {
	switch n := n.(type) {
	case *ast.AssignExpression:
		if b, ok := n.Left.(*ast.BracketExpression); ok && jsChainIs(b.Left, "require", "cache") && !j.unchanged(n) {
			j.add("mock-of-unit", n, "a test puts its own module into require.cache: the code it requires is the fake, not the unit under test")
		}
	case *ast.CallExpression:
		if jsChainIs(n.Callee, "process", "exit") && (len(n.ArgumentList) == 0 || jsZero(n.ArgumentList[0])) && !j.unchanged(n) {
			j.add("gate-masks-failure", n, "a test file exits 0: the run ends before its failures are reported, and passes")
		}
	}
}

// judgeTestTricks judges one test(...) call whose function is fn.
func (j *jsJudgement) judgeTestTricks(fn ast.Expression, body ast.Node) {
	strict := strings.Contains(j.f.src, "assert/strict") || strings.Contains(j.f.src, ".strict")
	promises := map[string]bool{}
	jsWalk(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Binding:
			if id, ok := n.Target.(*ast.Identifier); ok && j.isPromiseCall(n.Initializer) {
				promises[string(id.Name)] = true
			}
		case *ast.CallExpression:
			ok, _ := jsAsserts(n)
			if !ok {
				return true
			}
			_, names := jsChain(n.Callee)
			last := ""
			if len(names) > 0 {
				last = names[len(names)-1]
			}
			args := n.ArgumentList
			if (last == "" || last == "ok") && len(args) >= 2 && !jsMessage(args[1]) {
				j.add("assertion-misused", n, "assert.ok takes a failure message, not an expected value, as its second argument: it only checks that "+j.f.text(args[0])+" is truthy")
			}
			if (last == "deepEqual" || last == "notDeepEqual") && !strict {
				j.add("assertion-loose", n, "assert."+last+" compares loosely (\"1\" equals 1): use deepStrictEqual")
			}
			// rejects and doesNotReject take the promise itself.
			if len(args) > 0 && last != "rejects" && last != "doesNotReject" && (j.isPromiseCall(args[0]) || jsIsIdent(args[0], promises)) {
				j.add("assertion-cannot-fail", n, "the assertion is on a promise that is never awaited: it holds whatever the promise resolves to")
			}
		}
		return true
	})
	j.judgeDone(fn, body)
}

// judgeDone finds done() called before a statement that asserts: the
// test has ended, and what the assertion finds is never heard.
func (j *jsJudgement) judgeDone(fn ast.Expression, body ast.Node) {
	done := jsDoneParam(fn)
	block, ok := body.(*ast.BlockStatement)
	if done == "" || !ok {
		return
	}
	for i, st := range block.List {
		e, ok := st.(*ast.ExpressionStatement)
		if !ok {
			continue
		}
		c, ok := e.Expression.(*ast.CallExpression)
		if !ok || !jsIdent(c.Callee, done) || len(c.ArgumentList) != 0 {
			continue
		}
		for _, later := range block.List[i+1:] {
			if j.reaches(later, 0, nil) {
				j.add("assertion-after-done", later, done+"() ends the test before this assertion runs: its failure is never reported")
				return
			}
		}
		return
	}
}

// jsDoneParam is the name of a test function's completion callback: the
// second parameter of node's (t, done), or a lone one named like it.
func jsDoneParam(fn ast.Expression) string {
	var params *ast.ParameterList
	switch f := fn.(type) {
	case *ast.FunctionLiteral:
		params = f.ParameterList
	case *ast.ArrowFunctionLiteral:
		params = f.ParameterList
	}
	if params == nil || len(params.List) == 0 || len(params.List) > 2 {
		return ""
	}
	id, ok := params.List[len(params.List)-1].Target.(*ast.Identifier)
	if !ok {
		return ""
	}
	switch n := string(id.Name); {
	case len(params.List) == 2, n == "done", n == "cb", n == "callback", n == "next", n == "end":
		return n
	}
	return ""
}

// isPromiseCall: a call, not awaited, of an async function of the code.
func (j *jsJudgement) isPromiseCall(e ast.Expression) bool {
	c, ok := e.(*ast.CallExpression)
	if !ok {
		return false
	}
	id, ok := c.Callee.(*ast.Identifier)
	return ok && j.async[string(id.Name)]
}

// jsMessage: an argument that reads as a failure message.
func jsMessage(e ast.Expression) bool {
	switch e := e.(type) {
	case *ast.StringLiteral, *ast.TemplateLiteral:
		return true
	case *ast.BinaryExpression:
		return e.Operator == token.PLUS && (jsMessage(e.Left) || jsMessage(e.Right))
	case *ast.Identifier:
		n := strings.ToLower(string(e.Name))
		return strings.Contains(n, "msg") || strings.Contains(n, "message") || strings.Contains(n, "reason")
	case *ast.NewExpression: // new Error(...)
		return true
	}
	return false
}

func jsZero(e ast.Expression) bool {
	n, ok := e.(*ast.NumberLiteral)
	return ok && n.Literal == "0"
}

func jsChainIs(e ast.Expression, root, name string) bool {
	r, names := jsChain(e)
	return jsIdent(r, root) && len(names) == 1 && names[0] == name
}

func jsIsIdent(e ast.Expression, set map[string]bool) bool {
	id, ok := e.(*ast.Identifier)
	return ok && set[string(id.Name)]
}
