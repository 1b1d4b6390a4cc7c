package judge

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/agentproto/agentproto/internal/lazyre"
)

// Bats test files are read with mvdan.cc/sh, which parses the Bats
// dialect: each @test block must be able to fail. In Bats any command
// that fails fails the test, except what `run` captures, what `|| true`
// swallows and what only prints or assigns; a test made only of those
// asserts nothing. When bats is on PATH each file is also run, and its
// TAP results join the executed-tests comparison.

func isBats(p string) bool { return strings.HasSuffix(p, ".bats") }

// batsTest is one @test block.
type batsTest struct {
	name string
	decl *syntax.TestDecl
	text string // the block as printed, to compare with the base
}

func parseBats(src []byte) ([]batsTest, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBats)).Parse(bytes.NewReader(src), "")
	if err != nil {
		return nil, err
	}
	var out []batsTest
	pr := syntax.NewPrinter()
	syntax.Walk(f, func(n syntax.Node) bool {
		d, ok := n.(*syntax.TestDecl)
		if !ok {
			return true
		}
		var name, text bytes.Buffer
		pr.Print(&name, d.Description)
		pr.Print(&text, d)
		out = append(out, batsTest{name: strings.Trim(name.String(), `"'`), decl: d, text: text.String()})
		return false
	})
	return out, nil
}

func batsFindings(baseDir, headDir string, changed []string) []Finding {
	var fs []Finding
	for _, rel := range changed {
		if !isBats(rel) {
			continue
		}
		src, err := readInTree(headDir, rel)
		if err != nil {
			continue
		}
		tests, err := parseBats(src)
		if err != nil {
			continue // a file bats cannot read fails the gate instead
		}
		old := map[string]bool{}
		if b, err := readInTree(baseDir, rel); err == nil {
			if ts, err := parseBats(b); err == nil {
				for _, t := range ts {
					old[t.text] = true
				}
			}
		}
		for _, t := range tests {
			if old[t.text] {
				continue
			}
			fs = append(fs, judgeBats(rel, t)...)
		}
	}
	return fs
}

// judgeBats: a test whose first command skips it whatever happens, a
// check that cannot fail, a test where nothing can fail.
func judgeBats(rel string, t batsTest) []Finding {
	var fs []Finding
	add := func(code string, p syntax.Pos, why string) {
		fs = append(fs, Finding{Code: code, Severity: "error", File: rel, Line: int(p.Line()), Message: why})
	}
	if b, ok := t.decl.Body.Cmd.(*syntax.Block); ok && len(b.Stmts) > 0 {
		if name, _ := batsCall(b.Stmts[0]); name == "skip" {
			add("test-skipped", b.Stmts[0].Pos(), t.name+" is skipped whatever the environment: it proves nothing")
		}
	}
	fails := false
	var visit func(syntax.Node) bool
	visit = func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.IfClause:
			// A failing condition takes the other branch; it does not
			// fail the test.
			for _, s := range n.Then {
				syntax.Walk(s, visit)
			}
			if n.Else != nil {
				syntax.Walk(n.Else, visit)
			}
			return false
		case *syntax.BinaryCmd:
			if n.Op == syntax.OrStmt && batsHarmless(n.Y) {
				// cmd || skip is a guard; cmd || true drops a failure.
				if name, _ := batsCall(n.Y); name != "skip" && batsCanFail(n.X) {
					add("assertion-cannot-fail", n.Pos(), "a check is followed by `|| true`: its failure is swallowed")
				}
				return false
			}
		case *syntax.Stmt:
			if n.Negated {
				return false // bats does not fail on a negated command
			}
			if name, args := batsCall(n); (name == "[" || name == "test") && batsSameOperands(args) {
				add("assertion-cannot-fail", n.Pos(), "this check compares a value with itself: it cannot fail")
				return false
			}
			if _, ok := n.Cmd.(*syntax.BinaryCmd); !ok && batsCanFail(n) {
				fails = true
			}
		case *syntax.FuncDecl:
			return false
		}
		return true
	}
	syntax.Walk(t.decl.Body, visit)
	if !fails {
		add("test-no-assertion", t.decl.Pos(), t.name+" asserts nothing that can fail: `run` keeps the status unless it is checked, and printing or assigning never fails")
	}
	return fs
}

// batsCall is the command name and arguments of a simple command.
func batsCall(s *syntax.Stmt) (string, []string) {
	c, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) == 0 {
		return "", nil
	}
	var words []string
	for _, w := range c.Args {
		words = append(words, w.Lit())
		if w.Lit() == "" {
			var b bytes.Buffer
			syntax.NewPrinter().Print(&b, w)
			words[len(words)-1] = b.String()
		}
	}
	return words[0], words[1:]
}

// batsHarmless: commands that never fail a test.
func batsHarmless(s *syntax.Stmt) bool {
	name, _ := batsCall(s)
	switch name {
	case "true", ":", "echo", "printf", "run", "skip", "load", "bats_load_library", "cd", "local", "export", "declare", "readonly", "set", "shopt", "sleep":
		return true
	case "":
		c, ok := s.Cmd.(*syntax.CallExpr)
		return ok && len(c.Args) == 0 // an assignment alone
	}
	return false
}

// batsCanFail: a simple command, test clause or arithmetic that fails
// the test when it fails.
func batsCanFail(s *syntax.Stmt) bool {
	switch s.Cmd.(type) {
	case *syntax.TestClause, *syntax.ArithmCmd:
		return true
	case *syntax.CallExpr:
		return !batsHarmless(s)
	}
	return false
}

// batsSameOperands: [ X op X ] with the same two words.
func batsSameOperands(args []string) bool {
	if n := len(args); n > 0 && args[n-1] == "]" {
		args = args[:n-1]
	}
	return len(args) == 3 && args[0] == args[2] && strings.HasPrefix(args[1], "-") || len(args) == 3 && args[0] == args[2] && (args[1] == "=" || args[1] == "==")
}

var batsTAP = lazyre.New(`^(not )?ok \d+ (.*?)(?: # (skip|SKIP|todo|TODO)\b.*)?$`)

// batsTests runs each .bats file of the tree with bats, when bats is on
// PATH, and records each test's outcome; a test's body hash names it, so
// a renamed test is still the same test.
func batsTests(ctx context.Context, dir string, tr testRun) {
	bats, err := exec.LookPath("bats")
	if err != nil {
		return
	}
	var files []string
	hasFile(dir, func(p string) bool {
		if isBats(p) {
			files = append(files, p)
		}
		return false
	})
	for _, p := range files {
		src, err := readInTree(dir, p)
		if err != nil {
			continue
		}
		tests, _ := parseBats(src)
		bodies := map[string]string{}
		for _, t := range tests {
			var b bytes.Buffer
			syntax.NewPrinter().Print(&b, t.decl.Body)
			bodies[t.name] = b.String()
		}
		g, out := runEnv(ctx, dir, shellQuote(bats)+" --tap "+shellQuote(p), nil)
		_ = g // failing tests are read from the TAP, not the exit code
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			m := batsTAP.FindStringSubmatch(sc.Text())
			if m == nil {
				continue
			}
			id := "bats:" + filepath.ToSlash(p) + ":" + m[2]
			outcome := "pass"
			switch {
			case m[3] != "":
				outcome = "skip"
			case m[1] != "":
				outcome = "fail"
			}
			tr.results.record(id, outcome)
			if b, ok := bodies[m[2]]; ok {
				tr.same[fmt.Sprintf("%x", sha256.Sum256([]byte(b)))] = id
			}
		}
	}
}
