// Package lazyre compiles regular expressions on first use. Compiling the
// project's few dozen patterns at start-up cost every command several
// milliseconds, most of them for patterns the command never uses.
package lazyre

import (
	"regexp"
	"sync"
)

// Regexp is a regular expression compiled when first used.
type Regexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

// New returns a lazily compiled expression; it panics on first use if the
// expression is invalid, as regexp.MustCompile would at start-up.
func New(expr string) *Regexp { return &Regexp{expr: expr} }

func (r *Regexp) get() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.expr) })
	return r.re
}

// MatchString is regexp.Regexp.MatchString.
func (r *Regexp) MatchString(s string) bool { return r.get().MatchString(s) }

// FindStringSubmatch is regexp.Regexp.FindStringSubmatch.
func (r *Regexp) FindStringSubmatch(s string) []string { return r.get().FindStringSubmatch(s) }

// FindAllStringSubmatch is regexp.Regexp.FindAllStringSubmatch.
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.get().FindAllStringSubmatch(s, n)
}

// FindStringIndex is regexp.Regexp.FindStringIndex.
func (r *Regexp) FindStringIndex(s string) []int { return r.get().FindStringIndex(s) }

// ReplaceAll is regexp.Regexp.ReplaceAll.
func (r *Regexp) ReplaceAll(src, repl []byte) []byte { return r.get().ReplaceAll(src, repl) }

// ReplaceAllString is regexp.Regexp.ReplaceAllString.
func (r *Regexp) ReplaceAllString(src, repl string) string {
	return r.get().ReplaceAllString(src, repl)
}
