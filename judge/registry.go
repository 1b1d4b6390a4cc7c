package judge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// A name a WP claims (its report's "claims", KIND:NAME) must exist once:
// declared once in a manifest — package.json (scripts, contributes) or a
// plain-text registry the plan wires (a line whose first field is the
// name) — and, where the manifest only points at code, registered once
// in that code. Orphans either way are findings. Kinds judged: command,
// route, config, menu, script; other kinds name things review cannot
// look up and are left alone.

// Claim is one name a WP's report claims.
type Claim struct{ wp, kind, name string }

// ParseClaim reads KIND:NAME, claimed by wp; false for a kind review
// cannot look up.
func ParseClaim(wp, s string) (Claim, bool) {
	k, n, ok := strings.Cut(s, ":")
	if !ok || n == "" {
		return Claim{}, false
	}
	switch k {
	case "command", "route", "config", "menu", "script":
		return Claim{wp: wp, kind: k, name: n}, true
	}
	return Claim{}, false
}

// manifests is what a tree declares, by kind then name.
type manifests struct {
	declared map[string]map[string][]string // kind → name → where
	// pointsAtCode: names declared where code must register them
	// (package.json contributes.commands).
	pointsAtCode map[string]bool
	hasContrib   bool // a package.json with contributes
	registries   []string
}

// RegistryFindings judges the claims against the tree in dir; registries
// are the plain-text files the plan's wiring writes to.
func RegistryFindings(dir string, claims []Claim, registries []string) []Finding {
	if len(claims) == 0 {
		return nil
	}
	m := readManifests(dir, registries)
	code := codeFiles(dir)
	var fs []Finding
	for _, c := range claims {
		at := m.declared[c.kind][c.name]
		if c.kind != "script" {
			at = append(at, m.declared["registry"][c.name]...)
		}
		reg := registrations(dir, code, c)
		add := func(code, why string) {
			fs = append(fs, Finding{Code: code, Severity: "error", WP: c.wp, Message: fmt.Sprintf("%s claims %s:%s, %s", c.wp, c.kind, c.name, why)})
		}
		switch {
		case len(at) == 0 && len(reg) == 0:
			add("claim-orphan", "but no manifest declares it and no code registers it")
			continue
		case len(at) > 1:
			add("declared-twice", "declared "+fmt.Sprint(len(at))+" times: "+strings.Join(at, ", "))
		case len(at) == 0 && c.kind == "command" && (m.hasContrib || len(m.registries) > 0):
			add("declared-missing", "registered in "+strings.Join(reg, ", ")+" but declared in no manifest")
		}
		switch {
		case len(reg) > 1:
			add("registered-twice", "registered "+fmt.Sprint(len(reg))+" times: "+strings.Join(reg, ", "))
		case len(reg) == 0 && m.pointsAtCode[c.kind+":"+c.name]:
			add("registered-missing", "declared in "+strings.Join(at, ", ")+" but no code registers it")
		}
	}
	return fs
}

// readManifests reads every package.json of the tree and the registries.
func readManifests(dir string, registries []string) manifests {
	m := manifests{declared: map[string]map[string][]string{}, pointsAtCode: map[string]bool{}}
	decl := func(kind, name, where string) {
		if m.declared[kind] == nil {
			m.declared[kind] = map[string][]string{}
		}
		m.declared[kind][name] = append(m.declared[kind][name], where)
	}
	var pkgs []string
	hasFile(dir, func(p string) bool {
		if path.Base(p) == "package.json" {
			pkgs = append(pkgs, p)
		}
		return false
	})
	for _, p := range pkgs {
		b, err := readInTree(dir, p)
		if err != nil {
			continue
		}
		// Keys are counted as written: a key appended twice is two
		// declarations, though a JSON reader keeps only the last.
		for _, k := range jsonKeys(b, "scripts") {
			decl("script", k, p+" scripts")
		}
		var pj struct {
			Contributes *struct {
				Commands []struct {
					Command string `json:"command"`
				} `json:"commands"`
				Submenus []struct {
					ID string `json:"id"`
				} `json:"submenus"`
				Configuration json.RawMessage `json:"configuration"`
			} `json:"contributes"`
		}
		if json.Unmarshal(b, &pj) != nil || pj.Contributes == nil {
			continue
		}
		m.hasContrib = true
		for _, c := range pj.Contributes.Commands {
			decl("command", c.Command, p+" contributes.commands")
			m.pointsAtCode["command:"+c.Command] = true
		}
		for _, s := range pj.Contributes.Submenus {
			decl("menu", s.ID, p+" contributes.submenus")
		}
		// configuration is one object or a list of them.
		var confs []json.RawMessage
		if json.Unmarshal(pj.Contributes.Configuration, &confs) != nil {
			confs = []json.RawMessage{pj.Contributes.Configuration}
		}
		for _, c := range confs {
			for _, k := range jsonKeys(c, "properties") {
				decl("config", k, p+" contributes.configuration")
			}
		}
	}
	for _, r := range registries {
		b, err := readInTree(dir, r)
		if err != nil {
			continue
		}
		m.registries = append(m.registries, r)
		for i, l := range strings.Split(string(b), "\n") {
			if f := strings.Fields(l); len(f) > 0 && !strings.HasPrefix(f[0], "#") {
				decl("registry", f[0], fmt.Sprintf("%s:%d", r, i+1))
			}
		}
	}
	return m
}

// readInTree reads a regular file of the tree, never through a symlink.
func readInTree(dir, rel string) ([]byte, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	st, err := root.Lstat(rel)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", rel)
	}
	return root.ReadFile(rel)
}

// jsonKeys lists the keys of the object at member of a JSON object, as
// written, duplicates kept.
func jsonKeys(b []byte, member string) []string {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		if t != member {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('{') {
			return nil
		}
		var keys []string
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return keys
			}
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return keys
			}
			keys = append(keys, fmt.Sprint(k))
		}
		return keys
	}
	return nil
}

// codeFiles lists the tree's source files that may register a name: not
// tests, not manifests.
func codeFiles(dir string) []string {
	var out []string
	hasFile(dir, func(p string) bool {
		switch filepath.Ext(p) {
		case ".js", ".mjs", ".cjs", ".ts", ".mts", ".tsx", ".jsx", ".go", ".py", ".rb", ".sh":
			if !isTestFile(p) {
				out = append(out, p)
			}
		}
		return false
	})
	sort.Strings(out)
	return out
}

// registerVerbs are the calls that register a command or a route with
// its name as the first argument.
var registerVerbs = map[string]string{
	"command": `registerCommand|registerTextEditorCommand|addCommand|AddCommand|register|command|Command`,
	"route":   `get|post|put|patch|delete|all|use|route|Get|Post|Put|Patch|Delete|Handle|HandleFunc|add_url_rule|add_route`,
}

// registrations finds where code registers a claim: a call of one of the
// kind's verbs whose first argument is the name, quoted (a route may
// carry its method first, "GET /x"). Settings, menus and scripts live in
// their manifest alone: reading a setting is no registration.
func registrations(dir string, files []string, c Claim) []string {
	verbs, ok := registerVerbs[c.kind]
	if !ok {
		return nil
	}
	name := regexp.QuoteMeta(c.name)
	prefix := ""
	if c.kind == "route" {
		prefix = `(?:[A-Z]+ +)?`
	}
	re := regexp.MustCompile(`(?:^|[^\w$])(?:` + verbs + `)\s*\(\s*["'` + "`" + `]` + prefix + name + `["'` + "`" + `]`)
	var at []string
	for _, p := range files {
		b, err := readInTree(dir, p)
		if err != nil {
			continue
		}
		for i, l := range strings.Split(string(b), "\n") {
			if re.MatchString(l) {
				at = append(at, fmt.Sprintf("%s:%d", p, i+1))
			}
		}
	}
	return at
}
