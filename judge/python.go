package judge

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"strings"
)

// Python code is judged from its own syntax tree, by python3 when it is
// present: only functions new or changed since the base are judged.
const pyJudge = `import ast, json, os, sys
head, base, files = sys.argv[1], sys.argv[2], sys.argv[3:]
def out(code, f, node, why):
    print(json.dumps({"code": code, "file": f, "line": getattr(node, "lineno", 0), "message": why}))
def parse(p):
    try:
        src = open(p).read()
        return src, ast.parse(src)
    except (OSError, SyntaxError, ValueError):
        return None, None
def funcs(src, tree):
    m = {}
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            m[n.name] = ast.get_source_segment(src, n)
    return m
def is_test_file(f):
    b = os.path.basename(f)
    return b.startswith("test") or b.endswith("_test.py")
test_lits = set()
for f in files:
    if is_test_file(f):
        src, tree = parse(os.path.join(head, f))
        if tree:
            for n in ast.walk(tree):
                if isinstance(n, ast.Constant) and isinstance(n.value, (int, float, str)) and not isinstance(n.value, bool):
                    test_lits.add(repr(n.value))
def name_of(e):
    if isinstance(e, ast.Attribute):
        return name_of(e.value) + "." + e.attr
    if isinstance(e, ast.Name):
        return e.id
    return ""
ASSERTS = ("assert", "fail")
BROAD = ("Exception", "BaseException", "")
def truthy_const(e):
    return isinstance(e, ast.Constant) and bool(e.value) or isinstance(e, ast.Tuple) and len(e.elts) > 0
def judge_test(f, fn):
    asserts = False
    patched = set()
    for d in fn.decorator_list:
        if isinstance(d, ast.Call) and name_of(d.func).endswith("patch") and d.args and isinstance(d.args[0], ast.Constant):
            patched.add(str(d.args[0].value))
    for n in ast.walk(fn):
        if isinstance(n, ast.Assert):
            if truthy_const(n.test):
                out("assertion-cannot-fail", f, n, "assert on a constant or a tuple is always true")
            else:
                asserts = True
        elif isinstance(n, ast.Call):
            nm = name_of(n.func)
            last = nm.split(".")[-1]
            if last.startswith(ASSERTS) or last in ("raises", "assertRaises"):
                if last in ("assertTrue", "assert_") and n.args and truthy_const(n.args[0]):
                    out("assertion-cannot-fail", f, n, nm + " of a constant cannot fail")
                else:
                    asserts = True
            if nm.endswith("patch") and n.args and isinstance(n.args[0], ast.Constant):
                patched.add(str(n.args[0].value))
    for n in ast.walk(fn):
        if isinstance(n, ast.Call):
            nm = name_of(n.func)
            for t in patched:
                if nm and (t == nm or t.endswith("." + nm)) and len(t.split(".")) == 2:
                    out("mock-of-unit", f, n, fn.name + " patches " + t + " and then calls it: the unit under test never runs")
    if not asserts:
        out("test-no-assertion", f, fn, fn.name + " asserts nothing: it passes whatever the code does")
def is_abstract(fn, parents):
    for d in fn.decorator_list:
        if name_of(d).split(".")[-1] in ("abstractmethod", "overload", "abstractproperty"):
            return True
    return False
def judge_code(f, fn):
    body = [s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and isinstance(s.value.value, str))]
    if body and all(isinstance(s, ast.Pass) or isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and s.value.value is Ellipsis for s in body) and not is_abstract(fn, None):
        out("not-implemented", f, fn, fn.name + " is a stub: its body is only pass or ...")
    if len(body) == 1 and isinstance(body[0], ast.Raise) and "NotImplementedError" in ast.dump(body[0]) and not is_abstract(fn, None):
        out("not-implemented", f, fn, fn.name + " only raises NotImplementedError")
    params = {a.arg for a in fn.args.args}
    for n in ast.walk(fn):
        if isinstance(n, ast.If) and isinstance(n.test, ast.Compare) and isinstance(n.test.left, ast.Name) and n.test.left.id in params \
                and len(n.test.ops) == 1 and isinstance(n.test.ops[0], ast.Eq) and isinstance(n.test.comparators[0], ast.Constant):
            lit = n.test.comparators[0].value
            if lit not in (0, "", None, False) and repr(lit) in test_lits:
                for s in n.body:
                    if isinstance(s, ast.Return) and isinstance(s.value, ast.Constant) and repr(s.value.value) in test_lits:
                        out("hard-coded-expected", f, n, fn.name + " answers the test's input %r with the test's expected %r" % (lit, s.value.value))
def judge_all(f, tree, changed):
    for n in ast.walk(tree):
        if isinstance(n, ast.ExceptHandler) and all(isinstance(s, ast.Pass) or isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) for s in n.body) \
                and (n.type is None or name_of(n.type).split(".")[-1] in BROAD):
            out("error-swallowed", f, n, "a broad except does nothing: every failure below it disappears")
        if isinstance(n, ast.withitem) and isinstance(n.context_expr, ast.Call) and name_of(n.context_expr.func).split(".")[-1] == "suppress" \
                and any(name_of(a).split(".")[-1] in ("Exception", "BaseException") for a in n.context_expr.args):
            out("error-swallowed", f, n.context_expr, "suppress(Exception) hides every failure in its block")
        if isinstance(n, ast.Call) and name_of(n.func).endswith("atexit.register") or isinstance(n, ast.Call) and name_of(n.func) == "register":
            d = ast.dump(n)
            if ("_exit" in d or "exit" in d) and "value=0" in d:
                out("gate-masks-failure", f, n, "an exit handler exits 0: the run succeeds whatever the tests did")
for f in files:
    src, tree = parse(os.path.join(head, f))
    if not tree:
        continue
    bsrc, btree = parse(os.path.join(base, f))
    old = funcs(bsrc, btree) if btree else {}
    judge_all(f, tree, old)
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if old.get(n.name) == ast.get_source_segment(src, n):
                continue
            if is_test_file(f) and n.name.startswith("test"):
                judge_test(f, n)
            elif not is_test_file(f):
                judge_code(f, n)
`

// pyFindings runs the judge on the Python files the change touched.
func pyFindings(ctx context.Context, baseDir, headDir string, changed []string) []Finding {
	var files []string
	for _, f := range changed {
		if strings.HasSuffix(f, ".py") {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		return nil
	}
	if _, err := exec.LookPath("python3"); err != nil {
		return []Finding{{Code: "not-judged", Severity: "warning", Message: "python3 is not on PATH: the Python code was not parsed"}}
	}
	cmd := exec.CommandContext(ctx, "python3", append([]string{"-I", "-c", pyJudge, headDir, baseDir}, files...)...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return []Finding{{Code: "not-judged", Severity: "warning", Message: "the Python judge failed: " + strings.TrimSpace(stderr.String())}}
	}
	var fs []Finding
	for _, l := range bytes.Split(out.Bytes(), []byte("\n")) {
		var f Finding
		if json.Unmarshal(l, &f) == nil && f.Code != "" {
			f.Severity = "error"
			fs = append(fs, f)
		}
	}
	return fs
}
