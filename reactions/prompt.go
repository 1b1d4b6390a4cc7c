package reactions

import (
	"fmt"
	"strings"

	"github.com/agentproto/agentproto/internal/secrets"
)

// maxPrompt bounds what one reaction sends an agent: enough for a
// comment or a few failing tests with their messages, never a whole CI
// log (which can be megabytes and costs tokens on every later turn).
const maxPrompt = 6 << 10

// maxLog bounds the failing part of a log kept in a check's event.
const maxLog = 4 << 10

// bound cuts text to max bytes at a line end, saying so.
func bound(text string, max int) string {
	if len(text) <= max {
		return text
	}
	cut := text[:max]
	if i := strings.LastIndexByte(cut, '\n'); i > max/2 {
		cut = cut[:i]
	}
	return cut + "\n[... cut: " + fmt.Sprint(len(text)-len(cut)) + " more bytes]"
}

// failingPart keeps the lines of a log that say what failed — those that
// name an error or a failure, or one of paths, with the line after each —
// or, when none does, its tail.
func failingPart(log string, paths []string) string {
	lines := strings.Split(log, "\n")
	keep := make([]bool, len(lines))
	any := false
	for i, l := range lines {
		low := strings.ToLower(l)
		hit := strings.Contains(low, "fail") || strings.Contains(low, "error") || strings.Contains(low, "panic")
		for _, p := range paths {
			hit = hit || strings.Contains(l, p)
		}
		if hit {
			any = true
			keep[i] = true
			if i+1 < len(lines) {
				keep[i+1] = true
			}
		}
	}
	if !any {
		tail, _ := secrets.ScrubTail([]byte(log), maxLog)
		return string(tail)
	}
	var b strings.Builder
	for i, l := range lines {
		if keep[i] {
			b.WriteString(l + "\n")
		}
	}
	return bound(secrets.Scrub(b.String()), maxLog)
}

// checkPrompt is what a failed check sends the owner of the files it
// names: those notes and the failing part of the log, bounded, scrubbed.
func checkPrompt(project, wp string, number int, c Check, notes []Note) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The pull request #%d of plan %s has a failed check: %q (%s) on %s.\n", number, project, c.Name, c.Conclusion, short(c.Head))
	b.WriteString("It names files in your perimeter:\n\n")
	for _, n := range notes {
		at := n.Path
		if n.Line > 0 {
			at += fmt.Sprintf(":%d", n.Line)
		}
		fmt.Fprintf(&b, "- %s: %s\n", at, n.Message)
	}
	if c.Log != "" {
		b.WriteString("\nThe failing part of its log:\n\n" + c.Log + "\n")
	}
	b.WriteString(tail(wp))
	return finish(b.String())
}

// commentPrompt is what a review comment sends the owner of its file.
func commentPrompt(project, wp string, number int, c Comment) string {
	var b strings.Builder
	at := c.Path
	if c.Line > 0 {
		at += fmt.Sprintf(":%d", c.Line)
	}
	fmt.Fprintf(&b, "A reviewer (%s) commented on %s in pull request #%d of plan %s:\n\n", c.User, at, number, project)
	b.WriteString(c.Body + "\n")
	b.WriteString(tail(wp))
	return finish(b.String())
}

// reviewPrompt is what a review asking for changes without naming a file
// sends the work package the supervisor gave it to.
func reviewPrompt(project, wp string, number int, r Review) string {
	var b strings.Builder
	fmt.Fprintf(&b, "A reviewer (%s) asks for changes on pull request #%d of plan %s, and the supervisor gave it to you:\n\n", r.User, number, project)
	b.WriteString(r.Body + "\n")
	b.WriteString(tail(wp))
	return finish(b.String())
}

func tail(wp string) string {
	return "\nFix it in your worktree, inside " + wp + "'s perimeter, and end with your agentproto-report block. " +
		"Do not commit or push: your work is verified, consolidated and reviewed, then pushed to the pull request for you.\n"
}

// finish scrubs what the forge wrote of secrets and bounds it.
func finish(s string) string { return bound(secrets.Scrub(s), maxPrompt) }
