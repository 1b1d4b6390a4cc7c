package plans

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentproto/agentproto/internal/fault"
)

const planTemplate = `# plan.toml of plan %[1]s. Check it with: git agentproto plan check %[1]s
name = "%[1]s"
# The revision every work package branches from.
base = "%[2]s"
# The gate: a command whose exit code says the work is done. Never pipe it.
gate = "%[3]s"
# Files that belong to nobody (go.mod, the command root, package.json...):
# executors list the lines they need there and the supervisor applies them.
shared = []

# WP0 freezes the interface contract (CONTRACT.md) in code before anyone
# codes against it. Every other work package depends on it.
[[wp]]
id = "WP0"
title = "Freeze the interface contract"
brief = "WP0-brief.md"
# Paths this work package may change, as globs ("internal/api", "pkg/**/*.go").
owns = []
# Paths it reads but must not change.
reads = []
depends_on = []
`

const specTemplate = `# SPEC: %s

## Goal
What the change achieves for its users, in a few sentences.

## Scope
What is in. What is explicitly out (non-goals).

## Changes
Every path that will change, each in backquotes; every one must be owned by a
work package or listed as shared in plan.toml.
- ` + "`path/to/file.go`" + `: what changes there.

## Facts
Facts executors rely on (versions, commands, names). Wrong facts are fixed
with: git agentproto plan amend %s --correction "..."

## Gate
The gate of plan.toml, and what it proves.
`

const contractTemplate = `# CONTRACT: %s

Frozen by WP0 before any other work package starts. Every brief refers to it;
nobody changes it after the freeze without a plan amendment.

## Interfaces
Types, function signatures, command names, file formats, with the package or
file where each lives.

## Invariants
What every implementation must keep true.
`

const briefTemplate = `# %[1]s: %[2]s

%[3]s
## Goal
What this work package delivers, in two or three sentences.

## Perimeter
You own (may change) only: the owns globs of %[1]s in plan.toml.
You read (must not change): its reads globs, and CONTRACT.md.
Shared files are wired by the supervisor: put the exact lines in your report
(for a JSON, TOML or YAML file, a snippet of the keys to add, merged by key).

## Forks: stop and ask
A design choice this brief does not cover means STOP and ask. The likely
forks, each with its default:
- (fork): default (choice).

## Gate
Run the plan's gate in your worktree; it must exit 0.

## Report
Your final report lists:
- Files touched
- Design choices
- Wiring for shared files (file and exact line, or file and config snippet)
- Exit codes of every verification command
`

// Init creates .plans/NAME with useful templates. It refuses to touch an
// existing plan.
func Init(workTree, name, base, gate, contract string) ([]string, error) {
	if err := ValidateProject(name); err != nil {
		return nil, err
	}
	dir := ProjectDir(workTree, name)
	if _, err := os.Stat(filepath.Join(dir, PlanFile)); err == nil {
		return nil, fault.Conflictf("plan %s already exists in %s; nothing was changed", name, filepath.Join(Dir, name))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	files := []struct{ name, text string }{
		{PlanFile, fmt.Sprintf(planTemplate, name, base, gate)},
		{"SPEC.md", fmt.Sprintf(specTemplate, name, name)},
		{"CONTRACT.md", fmt.Sprintf(contractTemplate, name)},
		{"WP0-brief.md", fmt.Sprintf(briefTemplate, "WP0", "Freeze the interface contract", contract)},
	}
	var written []string
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		if err := writeNew(path, f.text); err != nil {
			return written, err
		}
		written = append(written, filepath.Join(Dir, name, f.name))
	}
	return written, nil
}

// NewWP writes the brief of a new work package, with the contract block,
// and adds its [[wp]] entry to plan.toml.
func NewWP(p *Project, id, title, contract string) (string, error) {
	if err := ValidateWPID(id); err != nil {
		return "", err
	}
	for _, wp := range p.Plan.WPs {
		if wp.ID == id {
			return "", fault.Conflictf("plan %s already has %s", p.Name, id)
		}
	}
	if title == "" {
		title = "(title)"
	}
	brief := id + "-brief.md"
	path := filepath.Join(p.Dir, brief)
	if err := writeNew(path, fmt.Sprintf(briefTemplate, id, title, contract)); err != nil {
		return "", err
	}
	entry := fmt.Sprintf("\n[[wp]]\nid = %q\ntitle = %q\nbrief = %q\nowns = []\nreads = []\ndepends_on = [\"WP0\"]\n", id, title, brief)
	raw := strings.TrimRight(string(p.Raw), "\n") + "\n" + entry
	if err := os.WriteFile(filepath.Join(p.Dir, PlanFile), []byte(raw), 0o644); err != nil {
		os.Remove(path)
		return "", err
	}
	return filepath.Join(Dir, p.Name, brief), nil
}

// writeNew creates a file that must not exist yet: nothing a user wrote is
// ever overwritten.
func writeNew(path, text string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fault.Conflictf("%s already exists; nothing was overwritten", path)
	}
	if err != nil {
		return err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
