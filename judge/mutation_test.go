package judge

import (
	"bytes"
	"context"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"strings"
	"testing"
	"time"
)

func TestPruneImportsDropsOnlyWhatTheMutantStoppedUsing(t *testing.T) {
	src := "package m\n\nimport (\n\t\"fmt\"\n\t\"math\"\n\t\"os\"\n)\n\nvar _ = os.Args\n\nfunc D(a float64) float64 { fmt.Println(); return math.Abs(a) }\n"
	f, err := parser.ParseFile(token.NewFileSet(), "m.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	before := selected(f)
	fn := f.Decls[2].(*ast.FuncDecl)
	fn.Body.List = fn.Body.List[1:] // fmt is no longer used
	pruneImports(f, before)
	var b bytes.Buffer
	if err := printer.Fprint(&b, token.NewFileSet(), f); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, `"fmt"`) || !strings.Contains(out, `"math"`) || !strings.Contains(out, `"os"`) {
		t.Fatalf("imports after pruning:\n%s", out)
	}
	if _, err := parser.ParseFile(token.NewFileSet(), "m.go", out, 0); err != nil {
		t.Fatalf("the pruned mutant does not parse: %v\n%s", err, out)
	}
}

func TestImportName(t *testing.T) {
	for path, want := range map[string]string{`"math"`: "math", `"mvdan.cc/sh/v3/syntax"`: "syntax", `"github.com/go-git/go-git/v5"`: "git", `"gopkg.in/yaml.v3"`: "yaml"} {
		if got := importName(&ast.ImportSpec{Path: &ast.BasicLit{Value: path}}); got != want {
			t.Errorf("importName(%s) = %q, want %q", path, got, want)
		}
	}
}

// A function whose zero-value mutant leaves an import unused is still
// judged: the mutant is repaired, runs, and survives the weak test.
func TestMutationRepairsUnbuiltMutants(t *testing.T) {
	dist := "package m\n\nimport \"math\"\n\n// Dist is the distance between a and b.\nfunc Dist(a, b float64) float64 {\n\td := math.Abs(a - b)\n\treturn d\n}\n"
	base := writeTree(t, map[string]string{"go.mod": "module m\n\ngo 1.22\n"})
	for _, c := range []struct {
		check    string
		untested bool
	}{
		{"got < 0", true},
		{"got != 3", false},
	} {
		head := writeTree(t, map[string]string{
			"go.mod":       "module m\n\ngo 1.22\n",
			"dist.go":      dist,
			"dist_test.go": "package m\n\nimport \"testing\"\n\nfunc TestDist(t *testing.T) {\n\tif got := Dist(1, 4); " + c.check + " {\n\t\tt.Fatal(got)\n\t}\n}\n",
		})
		fs, _ := mutationSmoke(context.Background(), base, head, []string{"dist.go"}, 2*time.Minute)
		if got := strings.Contains(codes(fs), "untested"); got != c.untested {
			t.Errorf("test %q: untested = %v, want %v (%v)", c.check, got, c.untested, fs)
		}
	}
}
