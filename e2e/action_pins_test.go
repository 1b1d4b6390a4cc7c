package e2e

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// fullCommit is a uses: reference pinned to one commit: OWNER/REPO[/PATH]
// @ 40 hex digits. A tag or a branch moves under the same name.
var fullCommit = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+(/[^@]+)?@[0-9a-f]{40}$`)

// Every action action.yml runs is pinned by commit.
func TestActionPinsEveryActionByCommit(t *testing.T) {
	b, err := os.ReadFile("../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		Runs struct {
			Steps []struct {
				Uses string `yaml:"uses"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(b, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	n := 0
	for _, s := range a.Runs.Steps {
		if s.Uses == "" {
			continue
		}
		n++
		if !fullCommit.MatchString(s.Uses) {
			t.Errorf("action.yml uses %s: pin it to a full commit id (a tag or a branch moves)", s.Uses)
		}
	}
	if n == 0 {
		t.Fatal("action.yml uses no action: the test reads the wrong file")
	}
}

// The README's workflow pins every action it uses by commit; the Action
// itself stands as the placeholder of the commit a user chooses, never as
// a branch or a tag.
func TestReadmeWorkflowPinsEveryActionByCommit(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	uses := regexp.MustCompile(`(?m)^\s*-?\s*uses:\s*(\S+)`).FindAllStringSubmatch(string(b), -1)
	if len(uses) < 2 {
		t.Fatalf("the README's workflow has %d uses: lines", len(uses))
	}
	for _, u := range uses {
		ref := u[1]
		if strings.HasPrefix(ref, "agentproto/agentproto@") && ref == "agentproto/agentproto@"+readmeActionCommit {
			continue
		}
		if !fullCommit.MatchString(ref) {
			t.Errorf("README uses %s: pin it to a full commit id", ref)
		}
	}
}

// readmeActionCommit is how the README's workflow names the commit of the
// agentproto release its reader chose.
const readmeActionCommit = "FULL_COMMIT_ID"
