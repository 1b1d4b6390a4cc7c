package watch

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// View renders the model.
func (m *Model) View() tea.View {
	m.Draws++
	v := tea.NewView(m.Render())
	v.AltScreen = true
	return v
}

type styles struct {
	head, sel, bad, good, dim lipgloss.Style
}

func newStyles(color bool) styles {
	s := styles{
		head: lipgloss.NewStyle().Bold(true),
		sel:  lipgloss.NewStyle().Reverse(true),
		bad:  lipgloss.NewStyle(),
		good: lipgloss.NewStyle(),
		dim:  lipgloss.NewStyle(),
	}
	if color {
		s.bad = s.bad.Foreground(lipgloss.Color("1"))
		s.good = s.good.Foreground(lipgloss.Color("2"))
		s.dim = s.dim.Faint(true)
	}
	return s
}

// Render draws the whole screen as text of at most width × height cells.
func (m *Model) Render() string {
	st := newStyles(m.color)
	if m.once {
		// For a pipe or a file: text, not a single escape sequence.
		st = styles{}
	}
	w, h := max(m.width, 20), max(m.height, 8)
	snap := m.snap
	var out []string
	line := func(style lipgloss.Style, text string) {
		out = append(out, style.Render(ansi.Truncate(text, w, "…")))
	}
	live := 0
	for _, s := range snap.Sessions {
		if s.State == "running" || s.State == "launched" || s.State == "settled" {
			live++
		}
	}
	title := "agentproto watch"
	if snap.Project != "" {
		title += " · plan " + snap.Project
	}
	if snap.Goal != "" {
		title += " · goal " + snap.Goal
	}
	line(st.head, fmt.Sprintf("%s · %d sessions (%d live)", title, len(snap.Sessions), live))
	for _, p := range snap.Problems {
		line(st.bad, "! "+p)
	}
	// The lists share what the output pane leaves: a quarter each at most.
	budget := max((h-8)/4, 2)
	if snap.Project != "" {
		line(st.head, "WORK PACKAGES"+pipelineSuffix(snap.Pipeline))
		if p := snap.Spend; p != nil {
			line(lipgloss.NewStyle(), fmt.Sprintf("spend %s · supervisor %s", p.Total, p.Supervisor.Short()))
		}
		shown := window(len(snap.WPs), m.wpSel, budget)
		for _, r := range shown {
			wp := snap.WPs[r]
			cost := "-"
			if wp.Spend != nil {
				cost = wp.Spend.Short()
			}
			text := fmt.Sprintf("%-6s %-13s %-5s %-15s %-9s %s", wp.ID, wp.State, orDefault(wp.Verdict, "-"), orDefault(wp.Session, "-"), cost, wp.Title)
			if wp.Checkpoint != "" {
				text += " @" + wp.Checkpoint
			}
			style := lipgloss.NewStyle()
			switch wp.State {
			case "failed":
				style = st.bad
			case "verified", "checkpointed":
				style = st.good
			}
			if m.focus == focusWPs && r == clamp(m.wpSel, len(snap.WPs)) {
				style = st.sel
			}
			line(style, text)
		}
		if hidden := len(snap.WPs) - len(shown); hidden > 0 {
			line(st.dim, fmt.Sprintf("  … %d more work packages (a taller terminal, or move the selection)", hidden))
		}
	}
	renderPR(snap, st, line)
	line(st.head, "SESSIONS")
	if len(snap.Sessions) == 0 {
		line(st.dim, "  none")
	}
	shownSessions := window(len(snap.Sessions), m.sessSel, budget)
	for _, r := range shownSessions {
		s := snap.Sessions[r]
		text := fmt.Sprintf("%-15s %-8s turns %-3d %-10s %-10s %s %s", s.ID, s.State, s.Turns, s.Adapter, orDefault(s.Label, "-"), clock(s.LastActivity), s.Spend.Short())
		style := lipgloss.NewStyle()
		if n := len(s.Faults); n > 0 {
			text += fmt.Sprintf(" · fault %s", strings.Join(s.Faults, ","))
			style = st.bad
		}
		if n := len(s.Warnings); n > 0 {
			text += fmt.Sprintf(" · %d warnings", n)
		}
		if s.Sandbox == "none" {
			text += " · unconfined"
			style = st.bad
		}
		if m.focus == focusSessions && r == clamp(m.sessSel, len(snap.Sessions)) {
			style = st.sel
		}
		line(style, text)
	}
	if hidden := len(snap.Sessions) - len(shownSessions); hidden > 0 {
		line(st.dim, fmt.Sprintf("  … %d more sessions (a taller terminal, or move the selection)", hidden))
	}
	if len(snap.Policies) > 0 {
		line(st.head, "POLICIES")
		for _, r := range window(len(snap.Policies), 0, 3) {
			p := snap.Policies[r]
			state := "active"
			if !p.Active {
				state = "done"
			}
			line(lipgloss.NewStyle(), fmt.Sprintf("%-14s on %-10s do %-12s fired %d · %s · %s", p.ID, p.On, p.Do, p.Fired, state, strings.Join(p.Sessions, ",")))
		}
	}
	if snap.Goal != "" {
		line(st.head, "PEERS")
		if len(snap.Peers) == 0 {
			line(st.dim, "  none registered")
		}
		for _, r := range window(len(snap.Peers), 0, 3) {
			p := snap.Peers[r]
			line(lipgloss.NewStyle(), fmt.Sprintf("%-16s %-10s %s", p.Agent, p.State, strings.Join(p.Claims, "; ")))
		}
	}
	if m.once {
		return strings.Join(out, "\n") + "\n"
	}
	footer := m.footer()
	if id := m.selectedSession(); id != "" {
		line(st.head, "OUTPUT "+id)
		room := h - len(out) - len(footer)
		tail := m.tail
		if room < 0 {
			room = 0
		}
		if len(tail) > room {
			tail = tail[len(tail)-room:]
		}
		for _, t := range tail {
			line(lipgloss.NewStyle(), "  "+t)
		}
	}
	for len(out)+len(footer) < h {
		out = append(out, "")
	}
	for _, f := range footer {
		line(st.dim, f)
	}
	if len(out) > h {
		out = out[:h]
	}
	return strings.Join(out, "\n")
}

func (m *Model) footer() []string {
	var f []string
	switch m.mode {
	case modeConfirm:
		f = append(f, m.question+" [y/N]")
	case modePrompt:
		f = append(f, "prompt "+m.selectedSession()+": "+m.input+"█  (enter send · esc cancel)")
	default:
		if m.status != "" {
			f = append(f, m.status)
		}
	}
	keys := "tab focus · ↑↓ select · v verify WP · p prompt · i interrupt · x kill · q quit"
	if m.acts == nil {
		keys = "tab focus · ↑↓ select · q quit"
	}
	return append(f, keys)
}

// window returns the indexes of at most n rows of a list of total, keeping
// sel in view.
func window(total, sel, n int) []int {
	start := 0
	if sel >= n {
		start = sel - n + 1
	}
	var idx []int
	for i := start; i < total && len(idx) < n; i++ {
		idx = append(idx, i)
	}
	return idx
}

func pipelineSuffix(p []string) string {
	if len(p) == 0 {
		return ""
	}
	return " · " + strings.Join(p, ", ")
}

func clock(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("15:04:05")
}

// Once renders a snapshot for a terminal-less reader: the same lists, no
// selection, no output pane, no styles.
func Once(snap *Snapshot, width int) string {
	m := &Model{snap: snap, width: width, height: 24, focus: -1, sessSel: -1, wpSel: -1, once: true}
	return m.Render()
}
