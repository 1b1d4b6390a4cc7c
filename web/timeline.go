package web

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/agentproto/agentproto/pipeline"
	"github.com/agentproto/agentproto/sessions"
)

// timeline gathers the entries of the page's timeline. A wave is the
// dispatches launched together: a dispatch that follows anything other
// than a dispatch starts the next wave.
type timeline struct {
	entries  []Entry
	wave     int
	inLaunch bool
}

func (t *timeline) add(e Entry) {
	t.entries = append(t.entries, e)
	t.inLaunch = false
}

func (t *timeline) dispatch(at string, d pipeline.Dispatch) {
	if !t.inLaunch {
		t.wave++
	}
	who := d.Adapter
	if d.Model != "" {
		who += " " + d.Model
	}
	if d.Profile != "" {
		who += " (profile " + d.Profile + ")"
	}
	t.entries = append(t.entries, Entry{Time: at, Wave: t.wave, WP: d.WP, What: "dispatch",
		Text: fmt.Sprintf("attempt %d: session %s on %s", d.Attempt, d.Session, who)})
	t.inLaunch = true
}

func (t *timeline) verify(at string, v *pipeline.Verification) {
	text := fmt.Sprintf("%s: gate exits %d; %d changed, %d out of scope", v.Verdict, v.Gate.ExitCode, len(v.Changed), len(v.OutOfScope))
	tn := "bad"
	switch v.Verdict {
	case pipeline.Pass:
		tn = "ok"
	case pipeline.WaitingDecision:
		tn = "warn"
	}
	t.add(Entry{Time: at, WP: v.WP, What: "verify", Text: text, Tone: tn})
}

// sorted returns the entries by time, ledger order among equal times.
func (t *timeline) sorted() []Entry {
	at := func(s string) time.Time {
		v, _ := time.Parse(time.RFC3339Nano, s)
		return v
	}
	sort.SliceStable(t.entries, func(i, j int) bool { return at(t.entries[i].Time).Before(at(t.entries[j].Time)) })
	return t.entries
}

// sessionsOf fills v's sessions from the lifecycle events of the sessions
// its dispatches started, and adds their turns and faults to t; it
// returns how many events it read.
func sessionsOf(v *WPView, all map[string][]SessionEvent, t *timeline) int {
	n := 0
	seen := map[string]bool{}
	for _, d := range v.Dispatches {
		if d.Session == "" || seen[d.Session] {
			continue
		}
		seen[d.Session] = true
		s := &SessionView{ID: d.Session, Adapter: d.Adapter, Model: d.Model, State: "unknown"}
		n += len(all[d.Session])
		for _, e := range all[d.Session] {
			entry := Entry{Time: e.Time, WP: v.ID}
			switch state := strings.TrimPrefix(e.Kind, "session_"); state {
			case "diagnosed":
				s.Faults = append(s.Faults, e.Fault)
				entry.What, entry.Text, entry.Tone = "fault", fmt.Sprintf("%s turn %d: %s", d.Session, e.Turn, e.Fault), "bad"
			case "wedged":
				f := "wedged (" + e.Symptom + "): " + e.Cause
				s.Faults = append(s.Faults, f)
				entry.What, entry.Text, entry.Tone = "fault", fmt.Sprintf("%s turn %d: %s", d.Session, e.Turn, f), "bad"
			default:
				s.State = state
				if e.Adapter != "" {
					s.Adapter, s.Model = e.Adapter, e.Model
				}
				s.Turns = max(s.Turns, e.Turn)
				if e.Reason != "" {
					s.Reason = e.Reason
				}
				entry.What, entry.Text = "session", sessionText(d.Session, state, e)
				switch {
				case e.Fault != "":
					s.Faults = append(s.Faults, e.Fault)
					entry.What, entry.Tone = "fault", "bad"
				case state == sessions.StateFailed:
					entry.Tone = "bad"
				case state == sessions.StateRunning || state == sessions.StateSettled:
					entry.What = "turn"
				}
			}
			t.entries = append(t.entries, entry)
		}
		v.Sessions = append(v.Sessions, s)
	}
	return n
}

// sessionText says what one lifecycle event of session id means.
func sessionText(id, state string, e SessionEvent) string {
	var b strings.Builder
	switch state {
	case sessions.StateRunning:
		fmt.Fprintf(&b, "%s turn %d started", id, e.Turn)
	case sessions.StateSettled:
		fmt.Fprintf(&b, "%s turn %d ended", id, e.Turn)
	default:
		fmt.Fprintf(&b, "%s %s", id, state)
	}
	if e.ExitCode != nil {
		fmt.Fprintf(&b, ", exit %d", *e.ExitCode)
	}
	if e.Warning != "" {
		b.WriteString(", " + e.Warning)
	}
	if e.Fault != "" {
		b.WriteString(", fault " + e.Fault)
	}
	if e.Reason != "" {
		b.WriteString(": " + e.Reason)
	}
	return b.String()
}
