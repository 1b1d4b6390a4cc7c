# The Python judge: run by python3 -I with the head's and the base's trees and
# the changed files; it prints one JSON finding a line (see python.go).
import ast, json, os, sys
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
EQUALS = ("assertEqual", "assertEquals", "assertIs", "assertListEqual", "assertDictEqual", "assertTupleEqual",
          "assertSetEqual", "assertSequenceEqual", "assertCountEqual", "assertAlmostEqual", "assertMultiLineEqual")
MESSAGE_NAMES = ("msg", "message", "reason", "why", "desc", "note", "hint", "err")
def is_message(e):
    # The second argument of assertTrue is its failure message; anything
    # but text there is an expected value the author thought was compared.
    if isinstance(e, ast.Constant):
        return isinstance(e.value, str)
    if isinstance(e, ast.JoinedStr):
        return True
    if isinstance(e, ast.BinOp):
        return is_message(e.left)
    if isinstance(e, ast.Call):
        return name_of(e.func).split(".")[-1] in ("format", "str", "repr", "join")
    if isinstance(e, (ast.Name, ast.Attribute)):
        return any(m in name_of(e).lower() for m in MESSAGE_NAMES)
    return False
def patch_target(n):
    # patch("mod.f") and patch.object(mod, "f") both name mod.f.
    nm = name_of(n.func)
    if nm.endswith("patch") and n.args and isinstance(n.args[0], ast.Constant):
        return str(n.args[0].value)
    if nm.endswith("patch.object") and len(n.args) >= 2 and isinstance(n.args[1], ast.Constant) and name_of(n.args[0]):
        return name_of(n.args[0]) + "." + str(n.args[1].value)
    return None
BROAD = ("Exception", "BaseException", "")
def truthy_const(e):
    return isinstance(e, ast.Constant) and bool(e.value) or isinstance(e, ast.Tuple) and len(e.elts) > 0
def judge_test(f, fn):
    asserts = False
    patched = set()
    for d in fn.decorator_list:
        if isinstance(d, ast.Call) and patch_target(d):
            patched.add(patch_target(d))
    for n in ast.walk(fn):
        if isinstance(n, ast.Assert):
            if truthy_const(n.test):
                out("assertion-cannot-fail", f, n, "assert on a constant or a tuple is always true")
            elif isinstance(n.test, ast.Compare) and len(n.test.ops) == 1 and ast.dump(n.test.left) == ast.dump(n.test.comparators[0]):
                out("assertion-cannot-fail", f, n, "assert compares a value with itself: it passes whatever the code does")
            else:
                asserts = True
        elif isinstance(n, ast.Call):
            nm = name_of(n.func)
            last = nm.split(".")[-1]
            if last.startswith(ASSERTS) or last in ("raises", "assertRaises"):
                if last in ("assertTrue", "assert_") and n.args and truthy_const(n.args[0]):
                    out("assertion-cannot-fail", f, n, nm + " of a constant cannot fail")
                elif last in EQUALS and len(n.args) >= 2 and ast.dump(n.args[0]) == ast.dump(n.args[1]):
                    out("assertion-cannot-fail", f, n, nm + " compares a value with itself: it passes whatever the code does")
                else:
                    asserts = True
                if last in ("assertTrue", "assertFalse", "assert_") and len(n.args) >= 2 and not is_message(n.args[1]):
                    out("assertion-misused", f, n, nm + " takes a failure message, not an expected value, as its second argument: it only checks that %s is %s" %
                        (ast.get_source_segment(src_of[f], n.args[0]) or "the first", "true" if last != "assertFalse" else "false"))
                if last in ("assertRaises", "assertRaisesRegex", "raises") and n.args and name_of(n.args[0]).split(".")[-1] in ("Exception", "BaseException"):
                    out("assertion-too-broad", f, n, nm + "(" + name_of(n.args[0]) + ") passes on any error, a crash of the code under test included")
            if patch_target(n):
                patched.add(patch_target(n))
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
def made_up(v):
    # A value a broad except can return without any knowledge of the input.
    return v is None or isinstance(v, ast.Constant) or isinstance(v, (ast.List, ast.Dict, ast.Tuple, ast.Set)) and not getattr(v, "elts", getattr(v, "keys", []))
def judge_all(f, tree, changed, bsrc):
    for n in ast.walk(tree):
        if not is_test_file(f) and isinstance(n, ast.ExceptHandler) and (n.type is None or name_of(n.type).split(".")[-1] in BROAD) \
                and n.body and isinstance(n.body[-1], ast.Return) and made_up(n.body[-1].value) \
                and not any(isinstance(s, ast.Raise) for s in ast.walk(n)) and (ast.get_source_segment(src_of[f], n) or "") not in (bsrc or ""):
            out("error-swallowed", f, n, "a broad except returns a made-up value: every failure in its try becomes a plausible answer")
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
def defined_tests(f, src, tree, old):
    # Each test new or changed, with the names the runner may report it
    # under: its class and every class of the file deriving from it.
    classes = [c for c in tree.body if isinstance(c, ast.ClassDef)]
    def derived(name, seen):
        for c in classes:
            if c.name not in seen and any(name_of(b).split(".")[-1] == name for b in c.bases):
                seen.add(c.name)
                derived(c.name, seen)
        return seen
    def new(fn):
        return old.get(fn.name) != ast.get_source_segment(src, fn)
    for c in classes:
        for m in c.body:
            if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and m.name.startswith("test") and new(m):
                names = [c.name] + sorted(derived(c.name, set()))
                out("defined-test", f, m, " ".join(k + "." + m.name for k in names))
    for fn in tree.body:
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.name.startswith("test") and new(fn):
            out("defined-test", f, fn, fn.name)
src_of = {}
for f in files:
    src, tree = parse(os.path.join(head, f))
    if not tree:
        continue
    src_of[f] = src
    bsrc, btree = parse(os.path.join(base, f))
    old = funcs(bsrc, btree) if btree else {}
    judge_all(f, tree, old, bsrc)
    if is_test_file(f):
        defined_tests(f, src, tree, old)
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if old.get(n.name) == ast.get_source_segment(src, n):
                continue
            if is_test_file(f) and n.name.startswith("test"):
                judge_test(f, n)
            elif not is_test_file(f):
                judge_code(f, n)
