// Package lessons keeps the gotchas a supervisor learns as ledger events,
// so the next supervisor and every executor prompt start from them.
package lessons

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/secrets"
	"github.com/agentproto/agentproto/peers"
)

// Kind is the ledger kind of a lesson.
const Kind = "lesson_added"

// Recent is how many lessons a prompt includes.
const Recent = 10

// Lesson is one gotcha.
type Lesson struct {
	Text string   `json:"text"`
	Tags []string `json:"tags"`
	Time string   `json:"time,omitempty"`
}

// maxText bounds a lesson: it goes into every executor's prompt.
const maxText = 2000

// Add records a lesson; the same text twice is recorded once.
func Add(l *gitstore.Ledger, text string, tags []string) (bool, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return false, fault.Invalidf("a lesson needs text")
	}
	if len(text) > maxText {
		return false, fault.Invalidf("the lesson is %d bytes; the limit is %d", len(text), maxText)
	}
	if err := secrets.Refuse("the lesson", text); err != nil {
		return false, err
	}
	for _, t := range tags {
		if err := peers.ValidateName("tag", t); err != nil {
			return false, err
		}
	}
	if tags == nil {
		tags = []string{}
	}
	sum := sha256.Sum256([]byte(text))
	b, _ := json.Marshal(Lesson{Text: text, Tags: tags})
	res, err := l.Append([]gitstore.Draft{{Kind: Kind, ID: "lesson/" + hex.EncodeToString(sum[:8]), Data: b}})
	if err != nil {
		return false, err
	}
	return len(res.Written) == 1, nil
}

// List returns lessons newest first; with tags, only those sharing one.
// untagged also keeps lessons with no tag at all.
func List(l *gitstore.Ledger, tags []string, untagged bool, limit int) ([]Lesson, error) {
	want := map[string]bool{}
	for _, t := range tags {
		want[t] = true
	}
	var out []Lesson
	err := l.Events(gitstore.Query{Kinds: []string{Kind}}, func(e *gitstore.Event) error {
		var ls Lesson
		if json.Unmarshal(e.Data, &ls) != nil {
			return nil
		}
		ls.Time = e.Time
		keep := len(want) == 0 && !untagged
		if untagged && len(ls.Tags) == 0 {
			keep = true
		}
		for _, t := range ls.Tags {
			if want[t] {
				keep = true
			}
		}
		if keep && (limit == 0 || len(out) < limit) {
			out = append(out, ls)
		}
		return nil
	})
	return out, err
}

// Texts returns the texts of lessons, for prompts.
func Texts(ls []Lesson) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.Text
	}
	return out
}
