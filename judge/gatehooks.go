package judge

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/agentproto/agentproto/internal/lazyre"
)

// What the gate itself runs. Go packages and shell tests are also run by
// review on its own, so a gate that runs none of them would pass unseen;
// the gate is therefore heard too, and a gate that ran tests at the base
// and runs none at the head is a finding (gate-runs-no-tests).
//
// Go: GOFLAGS gets -exec, so the go command runs each test binary
// through a wrapper that runs it in test2json mode and keeps its report;
// the go command sees what -v prints (for a passing package in package
// list mode, nothing), or the report as it is when the gate asked for
// -json. GOFLAGS also gets -count=1: a cached result runs nothing, and
// would look like a gate that runs no tests. A gate that sets GOFLAGS
// itself, or passes -exec, is not heard.
//
// Shell: sh and bash on PATH are shims that record each *_test.sh they
// are asked to run, and its exit status, in AGENTPROTO_TESTLOG. A test
// run through its shebang, sourced, or by the interpreter's full path is
// not heard.

const goExecWrapper = `#!/bin/sh
# agentproto review: runs a go test binary in test2json mode, keeps its report.
case "${1##*/}" in
*.test) ;;
*) exec "$@" ;;
esac
out=$(mktemp "$AGENTPROTO_GOTESTDIR/run.XXXXXX") || exec "$@"
printf '%s\n' "$PWD" > "$out"
bin=$1
shift
json=
for a in "$@"; do
	[ "$a" = -test.v=test2json ] && json=1
done
"$bin" -test.v=test2json "$@" >> "$out" 2>&1
st=$?
if [ -n "$json" ]; then
	tail -n +2 "$out"
else
	tail -n +2 "$out" | tr -d '\026'
fi
exit $st
`

// shellShim is a shim for a shell, run by that shell itself: a shim
// run by another would lose what only that shell passes on (bash's
// exported functions). Its verbs are the real shell's path, as is and
// quoted.
const shellShim = `#!%s
# agentproto review: hears the *_test.sh files the gate runs.
real=%s
f=
for a in "$@"; do
	case $a in
	-c | -*c*) break ;;
	-* | +*) ;;
	*) f=$a; break ;;
	esac
done
case $f in
*_test.sh) ;;
*) exec "$real" "$@" ;;
esac
"$real" "$@"
st=$?
out=pass
[ "$st" -eq 0 ] || out=fail
case $f in
/*) ;;
*) f=$PWD/$f ;;
esac
if [ -n "$AGENTPROTO_TESTLOG" ]; then
	printf '{"id":"sh:%%s","outcome":"%%s"}\n' "$f" "$out" >> "$AGENTPROTO_TESTLOG"
fi
exit $st
`

// gateHooks writes the Go wrapper and the shell shims into hooks and
// returns the environment that turns them on.
func gateHooks(hooks string) ([]string, error) {
	var env []string
	bin, goDir := filepath.Join(hooks, "bin"), filepath.Join(hooks, "go")
	for _, d := range []string{bin, goDir} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return nil, err
		}
	}
	for _, name := range []string{"sh", "bash"} {
		real, err := exec.LookPath(name)
		if err != nil || !filepath.IsAbs(real) || !safePath.MatchString(real) {
			continue
		}
		shim := fmt.Sprintf(shellShim, real, shellQuote(real))
		if err := os.WriteFile(filepath.Join(bin, name), []byte(shim), 0o755); err != nil {
			return nil, err
		}
	}
	env = append(env, "PATH="+joinList(bin, os.Getenv("PATH")))
	wrapper := filepath.Join(hooks, "goexec")
	flags := os.Getenv("GOFLAGS")
	if safePath.MatchString(wrapper) && !strings.Contains(flags, "-exec") {
		if err := os.WriteFile(wrapper, []byte(goExecWrapper), 0o755); err != nil {
			return nil, err
		}
		env = append(env, "AGENTPROTO_GOTESTDIR="+goDir, "GOFLAGS="+strings.TrimSpace(flags+" -exec="+wrapper+" -count=1"))
	}
	return env, nil
}

// goTestLine is a test's result in a test binary's verbose output; the
// SYN byte marks it in test2json mode.
var goTestLine = lazyre.New(`^\s*\x16?--- (PASS|FAIL|SKIP): (\S+)`)

// readGoExec reads the reports the Go wrapper kept: each is the package
// directory, then the test binary's output.
func readGoExec(goDir, dir string, r testResults) {
	ents, err := os.ReadDir(goDir)
	if err != nil {
		return
	}
	module := goModule(dir)
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(goDir, e.Name()))
		if err != nil {
			continue
		}
		pwd, out, _ := bytes.Cut(b, []byte("\n"))
		pkg := string(pwd)
		if rel, ok := inTree(dir, pkg); ok {
			pkg = module
			if rel != "." {
				pkg = module + "/" + rel
			}
		}
		sc := bufio.NewScanner(bytes.NewReader(out))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if m := goTestLine.FindStringSubmatch(sc.Text()); m != nil {
				r.record("go:"+pkg+"."+m[2], strings.ToLower(m[1]))
			}
		}
	}
}

// shellIDs rewrites the ids the shell shims gave (sh:ABSOLUTE-PATH) to
// the ids review's own run gives (sh:PATH-IN-TREE).
func shellIDs(dir string, r testResults) {
	for id, out := range r {
		p, ok := strings.CutPrefix(id, "sh:/")
		if !ok {
			continue
		}
		if rel, ok := inTree(dir, "/"+p); ok {
			delete(r, id)
			r.record("sh:"+rel, out)
		}
	}
}

// inTree returns p relative to dir (or to dir with its symlinks
// resolved), when p lies inside it.
func inTree(dir, p string) (string, bool) {
	real, _ := filepath.EvalSymlinks(dir)
	for _, d := range []string{dir, real} {
		if d == "" {
			continue
		}
		if rel, err := filepath.Rel(d, p); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return filepath.ToSlash(rel), true
		}
	}
	return "", false
}

// goModule is the module path go.mod at the top of dir declares.
func goModule(dir string) string {
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return ""
	}
	module := ""
	for _, l := range strings.Split(string(mod), "\n") {
		if f := strings.Fields(l); len(f) == 2 && f[0] == "module" {
			module = strings.Trim(f[1], `"`)
		}
	}
	return module
}

// plural is "1 test", "2 tests".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// movedID is the id a test has once its file is renamed, for the runners
// whose ids name the file (pytest, jest and vitest, bats, shell tests);
// "" when its file was not renamed.
func movedID(id string, renames map[string]string) string {
	kind, rest, _ := strings.Cut(id, ":")
	sep := map[string]string{"pytest": "::", "js": " > ", "bats": ":", "sh": ""}[kind]
	file, tail := rest, ""
	if sep != "" {
		var ok bool
		if file, tail, ok = strings.Cut(rest, sep); !ok {
			return ""
		}
		tail = sep + tail
	} else if kind != "sh" {
		return ""
	}
	if to, ok := renames[file]; ok {
		return kind + ":" + to + tail
	}
	return ""
}

// gitRenames maps each file git's rename detection finds renamed in
// base..head to its new path.
func gitRenames(git func(args ...string) ([]byte, error), base, head string) (map[string]string, error) {
	out, err := git("diff", "-M", "--name-status", "--diff-filter=R", "-z", base, head)
	if err != nil {
		return nil, err
	}
	f := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	m := map[string]string{}
	for i := 0; i+2 < len(f); i += 3 {
		if strings.HasPrefix(f[i], "R") {
			m[f[i+1]] = f[i+2]
		}
	}
	return m, nil
}
