package shape

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// daemonPath is the sessions daemon. Everything else is its client
// (sessions.Client) or reads its records (sessions.View); only the serve
// command runs it, so only the daemon writes the session records.
const daemonPath = sessionsPath + "/daemon"

// serveFile runs the daemon: the serve of the daemon's own binary.
const serveFile = "cmd/agentproto-sessions/serve.go"

// daemonImportAllowed says whether a file that may import the daemon package: the
// serve command, and the daemon's own tests.
func daemonImportAllowed(rel string) bool {
	return rel == serveFile ||
		strings.HasPrefix(rel, "sessions/daemon/") && strings.HasSuffix(rel, "_test.go")
}

func TestOnlyServeImportsTheDaemon(t *testing.T) {
	root := moduleRoot(t)
	fset := token.NewFileSet()
	files, serve := 0, 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "testdata" || n == "node_modules" || path != root && strings.HasPrefix(n, ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		files++
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if p != daemonPath {
				continue
			}
			if !daemonImportAllowed(rel) {
				t.Errorf("%s imports %s: only the serve command runs the daemon; call sessions.Client, or read records through sessions.View", rel, daemonPath)
			} else if rel == serveFile {
				serve++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A walk that parsed nothing, or lost the serve command, would pass
	// whatever the code does.
	if files < 200 || serve != 1 {
		t.Fatalf("parsed %d files, serve imports the daemon %d times; the walk is broken", files, serve)
	}
}
