// Package lessons keeps the gotchas a supervisor learns as ledger events,
// so the next supervisor and every executor prompt start from them.
package lessons

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/secrets"
	"github.com/agentproto/agentproto/internal/texthygiene"
)

// Recent is how many lessons a prompt includes.
const Recent = 10

// maxText bounds a lesson: it goes into every executor's prompt.
const maxText = 2000

// Add records a lesson; the same text twice is recorded once.
func Add(l gitstore.Store, text string, tags []string) (bool, error) {
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
		if err := texthygiene.ValidateName("tag", t); err != nil {
			return false, err
		}
	}
	if tags == nil {
		tags = []string{}
	}
	sum := sha256.Sum256([]byte(text))
	res, err := lessonKind.Record(l, "lesson/"+hex.EncodeToString(sum[:8]), Lesson{Text: text, Tags: tags})
	if err != nil {
		return false, err
	}
	return len(res.Written) == 1, nil
}

// List returns lessons newest first; with tags, only those sharing one.
// untagged also keeps lessons with no tag at all.
func List(l gitstore.Store, tags []string, untagged bool, limit int) ([]Lesson, error) {
	want := map[string]bool{}
	for _, t := range tags {
		want[t] = true
	}
	var all []Lesson
	_, err := gitstore.Fold(l, &all, gitstore.On(lessonKind, func(all *[]Lesson, e *gitstore.Event, ls Lesson) {
		ls.Time = e.Time
		*all = append(*all, ls)
	}))
	if err != nil {
		return nil, err
	}
	var out []Lesson
	for i := len(all) - 1; i >= 0 && (limit == 0 || len(out) < limit); i-- {
		ls := all[i]
		keep := len(want) == 0 && !untagged
		if untagged && len(ls.Tags) == 0 {
			keep = true
		}
		for _, t := range ls.Tags {
			if want[t] {
				keep = true
			}
		}
		if keep {
			out = append(out, ls)
		}
	}
	return out, nil
}

// Texts returns the texts of lessons, for prompts.
func Texts(ls []Lesson) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.Text
	}
	return out
}
