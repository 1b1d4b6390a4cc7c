package judge

import (
	"strings"
	"testing"
)

// Each case is one test file; want is the codes of its findings.
func TestJSJudge(t *testing.T) {
	const head = "const test = require(\"node:test\");\nconst assert = require(\"node:assert\");\n"
	cases := []struct {
		name, file, src, want string
	}{
		{"asserts", "a.test.js", `test("a", () => { assert.strictEqual(add(1, 2), 3); });`, ""},
		{"no assertion", "a.test.js", `test("a", () => { add(1, 2); });`, "test-no-assertion"},
		{"regex literal with a brace", "a.test.js", `test("a", () => { const re = /\}/; assert.match("}", re); });`, ""},
		{"comment with a brace", "a.test.js", "test(\"a\", () => {\n  // }\n  assert.strictEqual(add(1, 2), 3);\n});", ""},
		{"template literal with braces", "a.test.js", "test(\"a\", () => {\n  const s = `${\"}\"}${`{`}`;\n  assert.strictEqual(s, \"}{\");\n});", ""},
		{"arrow without braces, asserting", "a.test.js", `test("a", () => assert.strictEqual(add(1, 2), 3));`, ""},
		{"arrow without braces, not asserting", "a.test.js", "test(\"a\", () => add(1, 2));\ntest(\"b\", () => { assert.ok(add(1, 2)); });", "test-no-assertion"},
		{"helper that asserts", "a.test.js", "function check(a, b, want) { assert.strictEqual(add(a, b), want); }\ntest(\"a\", () => { check(1, 2, 3); });", ""},
		{"helper that only logs", "a.test.js", "function check(a, b) { console.log(add(a, b)); }\ntest(\"a\", () => { check(1, 2); });", "test-no-assertion"},
		{"callback never called", "a.test.js", `test("a", () => { const c = () => assert.ok(add(1, 2)); void c; });`, "test-no-assertion"},
		{"callback called", "a.test.js", `test("a", () => { const c = (x) => assert.ok(x); c(add(1, 2)); });`, ""},
		{"throw counts", "a.test.js", `test("a", () => { if (add(1, 2) !== 3) throw new Error("add"); });`, ""},
		{"assert.ok(true)", "a.test.js", `test("a", () => { add(1, 2); assert.ok(true); });`, "assertion-cannot-fail test-no-assertion"},
		{"same operands", "a.test.js", `test("a", () => { const x = add(1, 2); assert.strictEqual(x, x); });`, "assertion-cannot-fail test-no-assertion"},
		{"expect with no matcher", "a.test.js", `test("a", () => { expect(add(1, 2)); });`, "assertion-cannot-fail test-no-assertion"},
		{"toBeDefined", "a.test.js", `it("a", () => { expect(add(1, 2)).toBeDefined(); });`, "assertion-cannot-fail test-no-assertion"},
		{"expect matcher", "a.test.js", `it("a", async () => { await expect(load()).rejects.toThrow(); expect(add(1, 2)).not.toBe(4); });`, ""},
		{"each over an empty table", "a.test.js", `test.each([])("a %i", (n) => { expect(add(n, 1)).toBe(n + 1); });`, "test-no-assertion"},
		{"each over a table", "a.test.js", `test.each([[1, 2]])("a %i", (a, b) => { expect(add(a, 1)).toBe(b); });`, ""},
		{"describe.each holds tests", "a.test.js", `describe.each([1])("d %i", (n) => { it("a", () => { add(n, 1); }); });`, "test-no-assertion"},
		{"empty catch", "lib.js", `function f() { try { g(); } catch (e) {} }`, "error-swallowed"},
		{"catch converted", "lib.js", `function f() { try { g(); } catch (e) { throw new Error("f: " + e.message); } }`, ""},
		{"promise catch dropped", "lib.js", `load().catch(() => {});`, "error-swallowed"},
		{"promise catch logged", "lib.js", `load().catch((e) => console.error(e));`, ""},
		{"assertion swallowed", "a.test.js", `test("a", () => { try { assert.strictEqual(add(1, 2), 3); } catch (e) { console.log(e); } });`, "assertion-swallowed"},
		{"assertion rethrown", "a.test.js", `test("a", () => { try { assert.strictEqual(add(1, 2), 3); } catch (e) { console.log(e); throw e; } });`, ""},
		{"typescript", "a.test.ts", "import { test, expect } from \"vitest\";\nimport { add } from \"./lib\";\n\ntest(\"a\", (): void => {\n  const n: number = add(1, 2);\n  void n;\n});\n", "test-no-assertion"},
		{"typescript asserting", "a.test.ts", "import test from \"node:test\";\nimport assert from \"node:assert\";\n\ntest(\"a\", (): void => {\n  assert.strictEqual(add(1, 2) as number, 3);\n});\n", ""},
		{"tsx", "a.test.tsx", "import { it, expect } from \"vitest\";\n\nit(\"renders\", () => {\n  const el = <div>{\"}\"}</div>;\n  expect(el).toBeDefined();\n});\n", "assertion-cannot-fail test-no-assertion"},
		{"module js", "a.test.mjs", "import test from \"node:test\";\nimport assert from \"node:assert/strict\";\n\ntest(\"a\", () => {\n  add(1, 2);\n});\n", "test-no-assertion"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := c.src
			if strings.HasSuffix(c.file, ".js") {
				src = head + src
			}
			if got := codes(jsJudge(c.file, nil, []byte(src))); got != c.want {
				t.Errorf("findings %q, want %q", got, c.want)
			}
		})
	}
}

// A TypeScript finding names the line of the TypeScript file, not of the
// JavaScript it was turned into.
func TestJSJudgeTypeScriptLines(t *testing.T) {
	src := "import { test } from \"vitest\";\n\ninterface P { a: number }\n\nconst p: P = { a: 1 };\n\ntest(\"a\", () => {\n  void p;\n});\n"
	fs := jsJudge("x.test.ts", nil, []byte(src))
	if len(fs) != 1 || fs[0].Line != 7 || fs[0].File != "x.test.ts" {
		t.Fatalf("findings %+v, want one on line 7", fs)
	}
}

// Only what changed since the base is judged.
func TestJSJudgeOnlyChanged(t *testing.T) {
	old := "const test = require(\"node:test\");\ntest(\"a\", () => { add(1, 2); });\n"
	if fs := jsJudge("a.test.js", []byte(old), []byte(old+"test(\"b\", () => { assert.ok(add(1, 2)); });\n")); len(fs) != 0 {
		t.Fatalf("an unchanged test is judged: %+v", fs)
	}
}

// A sourceMappingURL in the file is never followed: it names a path the
// tree's author chose.
func TestJSIgnoresSourceMapURL(t *testing.T) {
	src := "const x = 1;\n//# sourceMappingURL=/etc/passwd\n"
	if _, err := parseJS("a.js", []byte(src)); err != nil {
		t.Fatal(err)
	}
	if _, err := parseJS("a.ts", []byte(src)); err != nil {
		t.Fatal(err)
	}
}

func FuzzJSJudge(f *testing.F) {
	f.Add("a.test.js", "test(\"a\", () => { assert.ok(x) });")
	f.Add("a.test.ts", "it('b', function (): void { try { expect(1).toBe(1) } catch (e) {} })")
	f.Add("a.test.mjs", "import t from 'node:test'; t(`c`, {}, async () => { \"unterminated")
	f.Add("a.test.tsx", "test.each([])('x', () => <a>{'}'}</a>)")
	f.Fuzz(func(t *testing.T, name, src string) {
		for _, fd := range jsJudge(name, []byte(src[:len(src)/2]), []byte(src)) {
			if fd.Code == "" || fd.Message == "" || fd.Line < 0 || fd.File != name {
				t.Fatalf("bad finding %+v", fd)
			}
		}
	})
}

// Each node:test trick is found, and its honest twin is not.
func TestJSTestTricks(t *testing.T) {
	const head = "const { test, after } = require(\"node:test\");\nconst assert = require(\"node:assert\");\n"
	async := map[string]bool{"total": true}
	cases := []struct{ name, body, want string }{
		{"ok with an expected value", `test("m", () => { assert.ok(mul(3, 4), 12); });`, "assertion-misused"},
		{"ok with a message", `test("m", () => { assert.ok(mul(3, 4) > 0, "positive"); });`, ""},
		{"loose deepEqual", `test("m", () => { assert.deepEqual(list("1"), [1]); });`, "assertion-loose"},
		{"strict deepEqual", `test("m", () => { assert.deepStrictEqual(list("1"), [1]); });`, ""},
		{"promise never awaited", `test("m", async () => { const got = total(); assert.ok(got); });`, "assertion-cannot-fail"},
		{"promise awaited", `test("m", async () => { const got = await total(); assert.strictEqual(got, 6); });`, ""},
		{"rejects takes the promise", `test("m", async () => { await assert.rejects(total()); });`, ""},
		{"done before the assertion", `test("m", (t, done) => { done(); setTimeout(() => assert.strictEqual(mul(3, 4), 12), 5); });`, "assertion-after-done"},
		{"done after the assertion", `test("m", (t, done) => { setTimeout(() => { assert.strictEqual(mul(3, 4), 12); done(); }, 5); });`, ""},
		{"require.cache fake", `const p = require.resolve("../lib.js"); require.cache[p] = { exports: { mul: () => 12 } };` + "\n" + `test("m", () => { assert.strictEqual(mul(3, 4), 12); });`, "mock-of-unit"},
		{"require.cache reset", `delete require.cache[require.resolve("../lib.js")];` + "\n" + `test("m", () => { assert.strictEqual(mul(3, 4), 12); });`, ""},
		{"exit 0 after the tests", `test("m", () => { assert.strictEqual(mul(3, 4), 12); });` + "\n" + `after(() => process.exit(0));`, "gate-masks-failure"},
		{"exit 1 on a failure", `test("m", () => { assert.strictEqual(mul(3, 4), 12); });` + "\n" + `process.on("unhandledRejection", () => process.exit(1));`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := codes(jsJudgeWith("test/m.test.js", nil, []byte(head+c.body+"\n"), async)); got != c.want {
				t.Errorf("findings %q, want %q", got, c.want)
			}
		})
	}
}

func TestJSAsyncNames(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"lib.js":         "async function total() {}\nconst load = async () => 1;\nfunction add() {}\n",
		"other.mjs":      "export function add2() {}\nexport async function both() {}\n",
		"more.js":        "function both() {}\n",
		"test/x.test.js": "async function helper() {}\n",
	})
	got := jsAsyncNames(dir)
	if !got["total"] || !got["load"] || got["add"] || got["both"] || got["helper"] || len(got) != 2 {
		t.Fatalf("async names %v, want total and load", got)
	}
}
