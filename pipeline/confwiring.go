package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentproto/agentproto/internal/confmerge"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/repopath"
	"github.com/agentproto/agentproto/judge"
	"github.com/agentproto/agentproto/plans"
)

// ConfigMerge is one shared JSON, TOML or YAML file and the keys the work
// packages' snippets merged into it.
type ConfigMerge struct {
	File    string         `json:"file"`
	Changes []ConfigChange `json:"changes"`
	// Diff is the change to the file as `git diff` shows it; empty when
	// the file holds every key already.
	Diff   string `json:"diff"`
	Status string `json:"status"` // applied, present, would-apply
	// Whole is set when the file could not be edited in place and was
	// written anew by its format's encoder: its comments and layout are
	// not kept (the diff shows it).
	Whole bool `json:"written_whole,omitempty"`
}

// ConfigChange is one key a work package's snippet sets, appends to or
// removes.
type ConfigChange struct {
	WP   string `json:"wp"`
	Key  string `json:"key"`
	Op   string `json:"op"`
	From string `json:"renamed_from,omitempty"`
}

// ConfigCollision is two work packages changing one key of a shared file
// differently; Rename is the --rename that would move one aside.
type ConfigCollision struct {
	File string `json:"file"`
	confmerge.Collision
}

// Rename moves the key a work package's snippet adds to another key path:
// the supervisor's answer to a collision.
type Rename struct {
	WP   string
	From confmerge.Path
	To   confmerge.Path
	// Standing marks a rename recorded with an earlier consolidation and
	// not given again: it is dropped once it no longer applies.
	Standing bool
}

func (r Rename) String() string { return r.WP + ":" + r.From.String() + "=" + r.To.String() }

// ParseRename reads WPn:OLD=NEW, OLD and NEW dotted key paths.
func ParseRename(s string) (Rename, error) {
	wp, pair, ok := strings.Cut(s, ":")
	if !ok || strings.TrimSpace(wp) == "" {
		return Rename{}, fault.Invalidf("--rename %q: want WPn:OLD=NEW, e.g. WP2:scripts.test=scripts.test:wp2", s)
	}
	from, to, err := confmerge.ParsePathPair(pair)
	if err != nil {
		return Rename{}, fault.Invalidf("--rename %q: %v", s, err)
	}
	return Rename{WP: wp, From: from, To: to}, nil
}

// ParseRenames reads each --rename value.
func ParseRenames(ss []string) ([]Rename, error) {
	var out []Rename
	for _, s := range ss {
		r, err := ParseRename(s)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// standingRenames are the renames to use: those given, else those the
// last recorded consolidation used, so that a choice once made stands for
// run and for every consolidate after it until renames are given anew.
func standingRenames(given []Rename, st *State) ([]Rename, error) {
	if len(given) > 0 || st.Consolidated == nil {
		return given, nil
	}
	rs, err := ParseRenames(st.Consolidated.Renames)
	if err != nil {
		return nil, fmt.Errorf("the renames recorded with the last consolidation: %w", err)
	}
	for i := range rs {
		rs[i].Standing = true
	}
	return rs, nil
}

func renameStrings(rs []Rename) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.String())
	}
	return out
}

// configFile is one shared config file and each WP's change to it, in
// dependency order.
type configFile struct {
	file    string
	format  confmerge.Format
	changes []confmerge.Change
	renamed map[string]map[string]string // wp → new key → old key
}

// isConfigWiring reports whether w is merged by key rather than by line.
func isConfigWiring(w Wiring) bool {
	return strings.TrimSpace(w.Snippet) != "" || len(w.Remove) > 0 || confmerge.ForFile(w.File) != nil
}

// planConfig reads every snippet the reports give for shared config files
// as a delta against the frozen base, moves the keys renames name, and
// finds the collisions. It reads git's objects only. A rename that names
// no WP or no key the WP adds is an error: nothing is merged.
// Findings and collisions go to c.
func (e *Env) planConfig(wps []plans.WP, st *State, base string, renames []Rename, c *Consolidation) ([]*configFile, error) {
	var files []*configFile
	byFile := map[string]*configFile{}
	var fs []judge.Finding
	for _, wp := range wps {
		v := st.Verifications[wp.ID]
		if v.Report == nil {
			continue
		}
		for _, w := range v.Report.Wiring {
			if !isConfigWiring(w) {
				continue
			}
			cf, d, f := e.configDelta(wp.ID, w, base, byFile)
			if f != nil {
				fs = append(fs, *f)
				continue
			}
			if byFile[cf.file] == nil {
				byFile[cf.file] = cf
				files = append(files, cf)
			}
			if n := len(cf.changes); n > 0 && cf.changes[n-1].Who == wp.ID {
				cf.changes[n-1].Delta = append(cf.changes[n-1].Delta, d...)
			} else {
				cf.changes = append(cf.changes, confmerge.Change{Who: wp.ID, Delta: d})
			}
		}
	}
	applied, err := applyRenames(e.Project, files, renames)
	if err != nil {
		return nil, err
	}
	c.Renames = renameStrings(applied)
	for _, cf := range files {
		for _, col := range confmerge.Collisions(cf.changes) {
			c.Collisions = append(c.Collisions, ConfigCollision{File: cf.file, Collision: col})
			msg := fmt.Sprintf("%s and %s both change %s in %s (%s: %s, %s: %s)", col.First, col.Second, col.Key, cf.file, col.First, col.FirstValue, col.Second, col.SecondValue)
			if col.Rename != "" {
				msg += fmt.Sprintf("; rename one: git agentproto consolidate %s --rename %s", e.Project.Name, col.Rename)
			}
			fs = append(fs, judge.Finding{Code: "config-collision", WP: col.Second, File: cf.file, Message: msg})
		}
	}
	c.Findings = append(c.Findings, fs...)
	return files, nil
}

// configDelta reads one wiring entry into the change it makes to its file
// at base, or the finding that refuses it.
func (e *Env) configDelta(wp string, w Wiring, base string, byFile map[string]*configFile) (*configFile, confmerge.Delta, *judge.Finding) {
	refuse := func(code, file, msg string) (*configFile, confmerge.Delta, *judge.Finding) {
		return nil, nil, &judge.Finding{Code: code, WP: wp, File: file, Message: msg}
	}
	file, err := repopath.Clean(w.File)
	if err != nil {
		return refuse("wiring-path-refused", w.File, err.Error()+"; wiring names a shared file inside the repository")
	}
	if owners := plans.Owner(e.Project, file); len(owners) != 1 || owners[0] != "shared" {
		return refuse("wiring-not-shared", file, file+" is not a shared file; its owner changes it, not the wiring")
	}
	f := confmerge.ForFile(file)
	switch {
	case f == nil:
		return refuse("config-not-structured", file, file+" is not a JSON, TOML or YAML file; wire it with a line, not a snippet")
	case w.Line != "":
		return refuse("wiring-line-into-config", file, fmt.Sprintf("%s is %s: give the keys to add as a snippet, not a line", file, f.Name()))
	}
	if err := checkWiringInTree(e.Repo, base, file); err != nil {
		return refuse("wiring-through-symlink", file, err.Error())
	}
	var remove []confmerge.Path
	for _, r := range w.Remove {
		p, err := confmerge.ParsePath(r)
		if err != nil {
			return refuse("config-malformed", file, fmt.Sprintf("%s's wiring for %s: remove: %v", wp, file, err))
		}
		remove = append(remove, p)
	}
	text, _ := e.Repo.Blob(base, file) // absent: a new file
	if len(text) > maxWiredFile {
		return refuse("config-malformed", file, fmt.Sprintf("%s is larger than %d MiB; wiring edits small shared files", file, maxWiredFile>>20))
	}
	d, err := confmerge.SnippetDelta(f, text, w.Snippet, remove)
	if err != nil {
		return refuse("config-malformed", file, fmt.Sprintf("%s's wiring for %s: %v", wp, file, err))
	}
	if cf := byFile[file]; cf != nil {
		return cf, d, nil
	}
	return &configFile{file: file, format: f, renamed: map[string]map[string]string{}}, d, nil
}

// applyRenames moves each rename's key in its WP's changes, refusing a
// rename of a WP the plan does not have or of a key the WP does not add
// (a standing rename is dropped instead). It returns the renames made.
func applyRenames(p *plans.Project, files []*configFile, renames []Rename) ([]Rename, error) {
	var applied []Rename
	for _, r := range renames {
		if _, err := p.WP(r.WP); err != nil {
			if r.Standing {
				continue
			}
			return nil, fault.Invalidf("--rename %s: plan %s has no work package %s; nothing was written", r, p.Name, r.WP)
		}
		moved := false
		for _, cf := range files {
			for i, c := range cf.changes {
				if c.Who != r.WP {
					continue
				}
				d, ok := c.Delta.Rename(r.From, r.To)
				if !ok {
					continue
				}
				cf.changes[i].Delta, moved = d, true
				if cf.renamed[r.WP] == nil {
					cf.renamed[r.WP] = map[string]string{}
				}
				for _, o := range d {
					if o.Path.HasPrefix(r.To) {
						cf.renamed[r.WP][o.Key] = append(append(confmerge.Path{}, r.From...), o.Path[len(r.To):]...).String()
					}
				}
			}
		}
		switch {
		case moved:
			applied = append(applied, r)
		case !r.Standing:
			return nil, fault.Invalidf("--rename %s: %s adds or changes no key %s in a shared config file; nothing was written", r, r.WP, r.From)
		}
	}
	return applied, nil
}

// merged is the text of cf after its changes, from text, and what it
// records.
func (cf *configFile) merged(text []byte) ([]byte, ConfigMerge, error) {
	m := ConfigMerge{File: cf.file, Changes: []ConfigChange{}}
	var all confmerge.Delta
	for _, c := range cf.changes {
		for _, o := range c.Delta {
			m.Changes = append(m.Changes, ConfigChange{WP: c.Who, Key: o.Key, Op: string(o.Kind), From: cf.renamed[c.Who][o.Key]})
		}
		all = append(all, c.Delta...)
	}
	out, whole, err := confmerge.MergeText(cf.format, text, all)
	if err != nil {
		return nil, m, fmt.Errorf("merging the snippets into %s: %v", cf.file, err)
	}
	m.Whole = whole
	m.Diff = confmerge.UnifiedDiff(cf.file, text, out)
	m.Status = WiringPresent
	return out, m, nil
}

// applyConfig merges each file's changes into its version in the
// worktree under root, writing through root only, and returns the files
// it changed.
func applyConfig(root *os.Root, files []*configFile, c *Consolidation) ([]string, error) {
	var changed []string
	for _, cf := range files {
		if err := checkWiringOnDisk(root, cf.file); err != nil {
			return nil, err
		}
		name := filepath.FromSlash(cf.file)
		text, mode, err := readWired(root, name)
		if err != nil {
			return nil, err
		}
		out, m, err := cf.merged(text)
		if err != nil {
			return nil, err
		}
		if m.Diff != "" {
			if err := writeWired(root, name, out, mode); err != nil {
				return nil, err
			}
			m.Status = WiringApplied
			changed = append(changed, cf.file)
		}
		c.Config = append(c.Config, m)
	}
	sort.Strings(changed)
	return changed, nil
}
