package judge

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/agentproto/agentproto/internal/lazyre"
	"github.com/agentproto/agentproto/internal/shellscript"
)

// Limits of following scripts from the gate: deep enough for a Makefile
// calling a script calling a test runner, small enough that a tree of
// thousands of scripts cannot make verify slow.
const (
	maxGateDepth   = 4
	maxGateScripts = 64
	maxScriptSize  = 1 << 20
)

var (
	// maskedExit is what keeps a failing command from failing: an
	// unconditional success after ||, an exit 0 after ;, errexit off.
	maskedExit = lazyre.New(`\|\|\s*(true\b|:(\s|;|\)|$)|exit\s+0\b)|;\s*exit\s+0\b|\bset\s+\+e\b|\bset\s+\+o\s+errexit\b`)
	errexitOn  = lazyre.New(`^\s*set\s+(-\w*e\w*|-o\s+errexit)\b`)
	// Word separators of a shell command line, quotes included: a script
	// named inside sh -c "..." is still named.
	shellSeparators = "\t\n ;&|()<>`\"'"
)

// MaskedGate looks for masked exit codes in the gate command and in every
// script it names, followed maxGateDepth deep: a script the gate calls is
// part of the gate. Named files are read from the worktree through
// os.Root, so a symlink cannot lead the reading out of it. A mask in a
// script that the same script already had at the WP's base (atBase gives
// a file's content there, nil when absent) is the project's own, not the
// WP's: it comes back in inherited, the rest in found.
func MaskedGate(dir, command string, atBase func(name string) []byte) (found, inherited []string) {
	if loc := maskedExit.FindStringIndex(command); loc != nil {
		found = append(found, fmt.Sprintf("gate-masked: the gate %q has %q, which hides a failing exit code", command, strings.TrimSpace(command[loc[0]:loc[1]])))
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return found, nil
	}
	defer root.Close()
	seen := map[string]bool{}
	queue := namedFiles(root.FS(), command, seen)
	for depth := 0; depth < maxGateDepth && len(queue) > 0; depth++ {
		var next []string
		for _, name := range queue {
			b, err := fs.ReadFile(root.FS(), name)
			if err != nil || len(b) > maxScriptSize || !isScript(name, b) {
				continue
			}
			before := map[string]int{}
			for _, mk := range scanScript(name, atBase(name)) {
				before[mk.code]++
			}
			for _, mk := range scanScript(name, b) {
				if before[mk.code] > 0 {
					before[mk.code]--
					inherited = append(inherited, "gate-masked-at-base: "+mk.finding+" (as at the WP's base)")
					continue
				}
				found = append(found, "gate-masked: "+mk.finding)
			}
			next = append(next, namedFiles(root.FS(), string(b), seen)...)
		}
		queue = next
	}
	return found, inherited
}

// namedFiles returns the files of fsys that words of text name (globs
// expanded), each once over the whole walk. A make word names the
// Makefile.
func namedFiles(fsys fs.FS, text string, seen map[string]bool) []string {
	var out []string
	add := func(name string) {
		if len(seen) >= maxGateScripts || seen[name] {
			return
		}
		if fi, err := fs.Stat(fsys, name); err == nil && fi.Mode().IsRegular() {
			seen[name] = true
			out = append(out, name)
		}
	}
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return strings.ContainsRune(shellSeparators, r) }) {
		if w == "make" || strings.HasSuffix(w, "/make") {
			for _, mk := range []string{"GNUmakefile", "makefile", "Makefile"} {
				add(mk)
			}
			continue
		}
		if strings.ContainsAny(w, "$=") || strings.HasPrefix(w, "-") {
			continue
		}
		name := path.Clean(strings.TrimPrefix(w, "./"))
		if !fs.ValidPath(name) || name == "." {
			continue // absolute or climbing out: not the worktree's
		}
		if strings.ContainsAny(name, "*?[") {
			matches, _ := fs.Glob(fsys, name)
			for _, m := range matches {
				add(m)
			}
			continue
		}
		add(name)
	}
	return out
}

// isScript says whether a named file is one a shell or make runs: a
// Makefile, a .sh or .bash file, or a file starting with a shell #! line.
func isScript(name string, b []byte) bool {
	base := path.Base(name)
	if base == "Makefile" || base == "makefile" || base == "GNUmakefile" || strings.HasSuffix(base, ".mk") ||
		strings.HasSuffix(base, ".sh") || strings.HasSuffix(base, ".bash") {
		return true
	}
	first, _, _ := bytes.Cut(b, []byte("\n"))
	return bytes.HasPrefix(first, []byte("#!")) && shellscript.IsShebang(string(first))
}

// scriptMask is one mask in a script: the line's code, which tells an
// inherited mask from a new one, and what to say about it.
type scriptMask struct {
	code, finding string
}

// scanScript finds the masks in one script: the maskedExit patterns on
// any line, make's ignore-errors prefix on a recipe line, and a script
// whose last command is exit 0 or true without errexit on, which makes
// the script succeed whatever ran before.
func scanScript(name string, b []byte) []scriptMask {
	var fs []scriptMask
	isMake := strings.HasSuffix(name, "akefile") || strings.HasSuffix(name, ".mk")
	errexit := false
	last, lastLine := "", 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64*1024), maxScriptSize)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		code := strings.TrimSpace(line)
		if code == "" || strings.HasPrefix(code, "#") {
			continue
		}
		if errexitOn.MatchString(code) {
			errexit = true
		}
		if loc := maskedExit.FindStringIndex(code); loc != nil {
			fs = append(fs, scriptMask{code, fmt.Sprintf("%s:%d has %q, which hides a failing exit code from the gate", name, n, strings.TrimSpace(code[loc[0]:loc[1]]))})
		}
		if isMake && strings.HasPrefix(line, "\t") && strings.HasPrefix(strings.TrimLeft(code, "@+"), "-") {
			fs = append(fs, scriptMask{code, fmt.Sprintf("%s:%d ignores the recipe's errors (leading -)", name, n)})
		}
		last, lastLine = code, n
	}
	if !isMake && !errexit && (last == "exit 0" || last == "true" || last == ":") {
		fs = append(fs, scriptMask{"end: " + last, fmt.Sprintf("%s:%d ends with %q, so the script succeeds whatever failed before", name, lastLine, last)})
	}
	return fs
}
