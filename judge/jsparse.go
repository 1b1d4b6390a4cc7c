package judge

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/parser"
	"github.com/dop251/goja/unistring"
	"github.com/evanw/esbuild/pkg/api"

	"github.com/agentproto/agentproto/internal/lazyre"
)

// JS/TS is read with two maintained parsers, each for what it does well.
// goja's parser gives a public, walkable syntax tree of JavaScript with
// positions; esbuild parses everything a test suite may be written in
// (TypeScript, JSX, ES modules) but keeps its syntax tree internal, so
// its public Transform turns such a file into plain CommonJS first, with a
// source map that goja follows back to the author's line. Plain scripts
// are parsed as they are, so their positions need no map.

// jsFile is one JS/TS file parsed.
type jsFile struct {
	src  string // the JavaScript parsed: the file, or what esbuild made of it
	prog *ast.Program
	file *file.File
}

const jsMapName = "agentproto-review.js.map"

// parseJS parses a JS/TS file named name.
func parseJS(name string, src []byte) (*jsFile, error) {
	loader := jsLoader(name)
	if loader == api.LoaderJS {
		// A script goja reads as it is; only a module, JSX or syntax
		// newer than goja's goes through esbuild.
		if f, err := gojaParse(string(src), nil); err == nil {
			return f, nil
		}
	}
	// esbuild (v0.28.2) loops forever quoting text that is not UTF-8
	// into its source map, a file's name or its content: agent-written
	// files reach it, so each bad byte becomes '?' (positions unchanged).
	res := api.Transform(utf8Bytes(src), api.TransformOptions{
		Loader:    loader,
		Format:    api.FormatCommonJS,
		Target:    api.ES2020,
		Sourcemap: api.SourceMapExternal,
		// The file's own name in the map: positions come back as lines
		// of the original.
		Sourcefile: utf8Bytes([]byte(filepath.Base(name))),
		LogLevel:   api.LogLevelSilent,
	})
	if len(res.Errors) > 0 {
		return nil, errors.New(res.Errors[0].Text)
	}
	f, err := gojaParse(string(res.Code)+"\n//# sourceMappingURL="+jsMapName+"\n", res.Map)
	if err != nil {
		return nil, err
	}
	f.unimport(string(src))
	return f, nil
}

// The imports of a module in its CommonJS form: the default or namespace
// name the author gave it.
var jsImportName = lazyre.New(`(?m)^\s*import\s+(?:\*\s+as\s+)?([A-Za-z_$][\w$]*)\s*(?:,\s*\{[^}]*\})?\s*from\s*["']([^"']+)["']`)

// jsImportMark replaces the name of a module variable esbuild made.
const jsImportMark = "\x00import"

// unimport gives back the names an ES module imported: esbuild calls
// import test from "node:test" then test(...) import_node_test.default
// and (0, import_node_test.default)(...); the judge reads them as test.
func (f *jsFile) unimport(orig string) {
	names := map[string]string{} // module → its default name
	for _, m := range jsImportName.FindAllStringSubmatch(orig, -1) {
		names[m[2]] = m[1]
	}
	vars := map[string]string{} // import_x → the default name of its module
	for _, st := range f.prog.Body {
		v, ok := st.(*ast.VariableStatement)
		if !ok {
			continue
		}
		for _, b := range v.List {
			id, ok := b.Target.(*ast.Identifier)
			if !ok || !strings.HasPrefix(string(id.Name), "import_") {
				continue
			}
			if mod, ok := jsRequired(b.Initializer); ok {
				vars[string(id.Name)] = names[mod]
			}
		}
	}
	jsWalk(f.prog, func(n ast.Node) bool {
		if d, ok := n.(*ast.DotExpression); ok {
			if id, ok := d.Left.(*ast.Identifier); ok {
				if def, ok := vars[string(id.Name)]; ok {
					id.Name = jsImportMark
					if d.Identifier.Name == "default" && def != "" {
						d.Identifier.Name = unistring.String(def)
					}
				}
			}
		}
		return true
	})
}

// jsRequired: require("m") or __toESM(require("m")).
func jsRequired(e ast.Expression) (string, bool) {
	c, ok := e.(*ast.CallExpression)
	if !ok || len(c.ArgumentList) == 0 {
		return "", false
	}
	if id, ok := c.Callee.(*ast.Identifier); ok && id.Name == "__toESM" {
		return jsRequired(c.ArgumentList[0])
	}
	if id, ok := c.Callee.(*ast.Identifier); ok && id.Name == "require" && len(c.ArgumentList) == 1 {
		if s, ok := c.ArgumentList[0].(*ast.StringLiteral); ok {
			return string(s.Value), true
		}
	}
	return "", false
}

// gojaParse parses JavaScript; smap, when given, maps its positions back
// to the source it was made from. No other source map is ever loaded:
// a sourceMappingURL in an untrusted file names a path to read.
func gojaParse(src string, smap []byte) (*jsFile, error) {
	opt := parser.WithDisableSourceMaps
	if smap != nil {
		opt = parser.WithSourceMapLoader(func(p string) ([]byte, error) {
			if strings.HasSuffix(p, "/"+jsMapName) || p == jsMapName {
				return smap, nil
			}
			return nil, errors.New("no source map is read from the tree")
		})
	}
	fset := &file.FileSet{}
	prog, err := parser.ParseFile(fset, "input.js", src, 0, opt)
	if err != nil {
		return nil, err
	}
	return &jsFile{src: src, prog: prog, file: prog.File}, nil
}

func jsLoader(name string) api.Loader {
	switch filepath.Ext(name) {
	case ".ts", ".mts", ".cts":
		return api.LoaderTS
	case ".tsx":
		return api.LoaderTSX
	case ".jsx":
		return api.LoaderJSX
	}
	return api.LoaderJS
}

// text is the JavaScript of a node.
func (f *jsFile) text(n ast.Node) string {
	a, b := int(n.Idx0())-f.file.Base(), int(n.Idx1())-f.file.Base()
	if a < 0 || b > len(f.src) || a > b {
		return ""
	}
	return f.src[a:b]
}

// line is the line of the original file a node starts on. A call is
// placed by its first argument: esbuild maps names and literals, not the
// parenthesis a CommonJS call starts with.
func (f *jsFile) line(n ast.Node) int {
	if c, ok := n.(*ast.CallExpression); ok && len(c.ArgumentList) > 0 {
		n = c.ArgumentList[0]
	}
	return f.file.Position(int(n.Idx0()) - f.file.Base()).Line
}

var (
	jsNodeType = reflect.TypeOf((*ast.Node)(nil)).Elem()
	jsASTPkg   = reflect.TypeOf(ast.Program{}).PkgPath()
)

// jsWalk calls visit for n and every node under it, depth first; visit
// returns false to skip what is under a node. goja has no walker of its
// own, so the tree is walked by its types: every field of a node that
// holds nodes. The hoisted DeclarationList repeats nodes of the body and
// is not walked.
func jsWalk(n ast.Node, visit func(ast.Node) bool) {
	if v := reflect.ValueOf(n); n == nil || v.Kind() == reflect.Pointer && v.IsNil() {
		return
	}
	if !visit(n) {
		return
	}
	jsWalkValue(reflect.ValueOf(n), visit)
}

func jsWalkValue(v reflect.Value, visit func(ast.Node) bool) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return
		}
		jsWalkValue(v.Elem(), visit)
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			jsWalkChild(v.Index(i), visit)
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < v.NumField(); i++ {
			if t.Field(i).Name == "DeclarationList" || !t.Field(i).IsExported() {
				continue
			}
			jsWalkChild(v.Field(i), visit)
		}
	}
}

// jsWalkChild visits a field: a node is visited, a list or an embedded
// struct of the syntax tree is walked through.
func jsWalkChild(v reflect.Value, visit func(ast.Node) bool) {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return
		}
		c := v
		if c.Kind() == reflect.Interface {
			c = c.Elem()
		}
		if c.Type().Implements(jsNodeType) {
			jsWalk(c.Interface().(ast.Node), visit)
		} else if c.Kind() == reflect.Pointer && c.Elem().Type().PkgPath() == jsASTPkg {
			jsWalkValue(c, visit)
		}
	case reflect.Slice:
		jsWalkValue(v, visit)
	case reflect.Struct:
		if v.Type().PkgPath() != jsASTPkg {
			return
		}
		if v.CanAddr() && v.Addr().Type().Implements(jsNodeType) {
			jsWalk(v.Addr().Interface().(ast.Node), visit)
			return
		}
		jsWalkValue(v, visit)
	}
}

// jsChain flattens a callee a.b.c into its root expression and the names
// after it.
func jsChain(e ast.Expression) (ast.Expression, []string) {
	var names []string
	for {
		switch d := e.(type) {
		case *ast.DotExpression:
			if id, ok := d.Left.(*ast.Identifier); ok && id.Name == jsImportMark {
				return &ast.Identifier{Name: d.Identifier.Name, Idx: d.Identifier.Idx}, names
			}
			names = append([]string{string(d.Identifier.Name)}, names...)
			e = d.Left
			continue
		case *ast.SequenceExpression: // (0, f)(...): f called without its this
			if len(d.Sequence) == 2 {
				if _, ok := d.Sequence[0].(*ast.NumberLiteral); ok {
					e = d.Sequence[1]
					continue
				}
			}
		case *ast.OptionalChain:
			e = d.Expression
			continue
		case *ast.Optional:
			e = d.Expression
			continue
		}
		return e, names
	}
}

func jsIdent(e ast.Expression, name string) bool {
	root, names := jsChain(e)
	id, ok := root.(*ast.Identifier)
	return ok && len(names) == 0 && string(id.Name) == name
}

// jsFunc is the body of a function literal, nil for anything else.
func jsFunc(e ast.Expression) ast.Node {
	switch f := e.(type) {
	case *ast.FunctionLiteral:
		if f.Body != nil {
			return f.Body
		}
	case *ast.ArrowFunctionLiteral:
		switch b := f.Body.(type) {
		case *ast.BlockStatement:
			return b
		case *ast.ExpressionBody:
			return b.Expression
		}
	}
	return nil
}

// utf8Bytes is b as a string with each byte that is not part of valid
// UTF-8 replaced by '?', so that every offset stays where it was.
func utf8Bytes(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	out := make([]byte, 0, len(b))
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			out = append(out, '?')
		} else {
			out = append(out, b[:n]...)
		}
		b = b[n:]
	}
	return string(out)
}
