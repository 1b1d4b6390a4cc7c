package watch

import (
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"
)

// Actions are what the view can ask for; the command implements them with
// the same library calls as the verbs they stand for.
type Actions interface {
	Prompt(session, text string) error
	Interrupt(session string) error
	Kill(session string) error
	// Verify verifies a work package of the watched plan and says how it went.
	Verify(wp string) (string, error)
}

// TailLines is how many output lines the view keeps of the selected session.
const TailLines = 200

type focus int

const (
	focusWPs focus = iota
	focusSessions
)

type mode int

const (
	modeNormal mode = iota
	modeConfirm
	modePrompt
)

// Model is the Bubble Tea model of the view.
type Model struct {
	src     Sources
	watched Watched
	acts    Actions
	color   bool

	snap   *Snapshot
	tail   []string
	width  int
	height int
	gen    int // of the change waiter whose answer is current

	focus   focus
	wpSel   int
	sessSel int

	mode     mode
	question string
	confirm  func() (string, error)
	input    string
	status   string

	once bool // Once: lists only

	// Draws counts renders, for measuring the view's cost.
	Draws int
}

// New returns a model reading src, with actions acts (nil: read-only).
func New(src Sources, w Watched, acts Actions, color bool) *Model {
	return &Model{src: src, watched: w, acts: acts, color: color, width: 80, height: 24, snap: &Snapshot{}}
}

type snapMsg struct {
	gen   int
	stamp Stamp // of the files, taken before snap was read
	snap  *Snapshot
	tail  []string
}

type doneMsg struct{ text string }

// Init reads the first snapshot.
func (m *Model) Init() tea.Cmd { return m.reload() }

// reload reads a snapshot now and then waits for the next change.
func (m *Model) reload() tea.Cmd {
	m.gen++
	gen, src, w, sel := m.gen, m.src, m.outputWatched(), m.selectedSession()
	return func() tea.Msg {
		// The stamp is taken before the read: a change during the read
		// moves it, so the waiter after this read cannot miss it.
		stamp := w.Take()
		return snapMsg{gen: gen, stamp: stamp, snap: Take(src), tail: m.readTail(sel)}
	}
}

// waitChange blocks (in its own goroutine, as every tea.Cmd runs) until the
// watched files differ from since, then reads the snapshot.
func (m *Model) waitChange(since Stamp) tea.Cmd {
	gen, src, w, sel := m.gen, m.src, m.outputWatched(), m.selectedSession()
	return func() tea.Msg {
		stamp := w.Take()
		for stamp == since {
			time.Sleep(PollEvery)
			stamp = w.Take()
		}
		return snapMsg{gen: gen, stamp: stamp, snap: Take(src), tail: m.readTail(sel)}
	}
}

func (m *Model) outputWatched() Watched {
	w := m.watched
	if id := m.selectedSession(); id != "" && m.src.Store != nil {
		w.Output = m.src.Store.OutputPath(id)
	}
	return w
}

func (m *Model) readTail(id string) []string {
	if id == "" || m.src.Store == nil {
		return nil
	}
	lines, err := Tail(m.src.Store, id, TailLines)
	if err != nil {
		return []string{"(no output: " + err.Error() + ")"}
	}
	return lines
}

func (m *Model) selectedSession() string {
	if m.snap == nil || len(m.snap.Sessions) == 0 {
		return ""
	}
	return m.snap.Sessions[clamp(m.sessSel, len(m.snap.Sessions))].ID
}

func (m *Model) selectedWP() string {
	if m.snap == nil || len(m.snap.WPs) == 0 {
		return ""
	}
	return m.snap.WPs[clamp(m.wpSel, len(m.snap.WPs))].ID
}

// Update handles a message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		return m, nil
	case snapMsg:
		if msg.gen != m.gen {
			return m, nil // a waiter from before the selection moved
		}
		// The selection follows the session (and the WP), not the row:
		// a list that re-sorted must not turn the next key on another.
		sess, wp := m.selectedSession(), m.selectedWP()
		m.snap, m.tail = msg.snap, msg.tail
		if i := slices.IndexFunc(m.snap.Sessions, func(r SessionRow) bool { return r.ID == sess }); sess != "" && i >= 0 && m.sessSel >= 0 {
			m.sessSel = i
		}
		if i := slices.IndexFunc(m.snap.WPs, func(r WPRow) bool { return r.ID == wp }); wp != "" && i >= 0 && m.wpSel >= 0 {
			m.wpSel = i
		}
		return m, m.waitChange(msg.stamp)
	case doneMsg:
		m.status = msg.text
		return m, m.reload()
	case tea.KeyPressMsg:
		return m.key(msg.String())
	}
	return m, nil
}

func (m *Model) key(k string) (tea.Model, tea.Cmd) {
	switch m.mode {
	case modeConfirm:
		m.mode = modeNormal
		if k == "y" || k == "Y" {
			return m, m.run(m.confirm)
		}
		m.status = "cancelled"
		return m, nil
	case modePrompt:
		switch k {
		case "enter":
			m.mode = modeNormal
			id, text := m.selectedSession(), m.input
			return m, m.run(func() (string, error) { return "prompted " + id, m.acts.Prompt(id, text) })
		case "esc":
			m.mode, m.status = modeNormal, "cancelled"
		case "backspace":
			if r := []rune(m.input); len(r) > 0 {
				m.input = string(r[:len(r)-1])
			}
		case "space":
			m.input += " "
		default:
			if r := []rune(k); len(r) == 1 && r[0] >= ' ' {
				m.input += k
			}
		}
		return m, nil
	}
	switch k {
	case "q", "ctrl+c":
		return m, tea.Quit
	case "tab":
		m.focus = 1 - m.focus
	case "up", "k":
		m.move(-1)
		return m, m.reload()
	case "down", "j":
		m.move(1)
		return m, m.reload()
	case "p", "i", "x":
		id := m.selectedSession()
		if id == "" || m.acts == nil {
			m.status = "no session selected"
			return m, nil
		}
		switch k {
		case "p":
			m.mode, m.input = modePrompt, ""
		case "i":
			m.ask("interrupt "+id+"'s turn?", func() (string, error) { return "interrupted " + id, m.acts.Interrupt(id) })
		case "x":
			m.ask("kill "+id+"? its worktree is kept", func() (string, error) { return "killed " + id, m.acts.Kill(id) })
		}
	case "v":
		wp := m.selectedWP()
		if wp == "" || m.acts == nil {
			m.status = "no work package selected"
			return m, nil
		}
		m.status = "verifying " + wp + "…"
		return m, m.run(func() (string, error) { return m.acts.Verify(wp) })
	}
	return m, nil
}

func (m *Model) ask(q string, run func() (string, error)) {
	m.mode, m.question, m.confirm = modeConfirm, q, run
}

func (m *Model) run(f func() (string, error)) tea.Cmd {
	return func() tea.Msg {
		text, err := f()
		if err != nil {
			return doneMsg{text: "error: " + err.Error()}
		}
		return doneMsg{text: text}
	}
}

func (m *Model) move(d int) {
	if m.focus == focusWPs {
		m.wpSel = clamp(m.wpSel+d, len(m.snap.WPs))
	} else {
		m.sessSel = clamp(m.sessSel+d, len(m.snap.Sessions))
	}
}

func clamp(i, n int) int {
	if i >= n {
		i = n - 1
	}
	if i < 0 {
		i = 0
	}
	return i
}
