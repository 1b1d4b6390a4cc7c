package web

import (
	"bytes"
	_ "embed"
	"html/template"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/agentproto/agentproto/pipeline"
)

// The page is one template set: html/template escapes every value by
// where it lands (text, attribute, URL), so what an agent wrote — a
// report, a finding, a gate log, a diff — is shown as text. Nothing of
// the page is ever marked as trusted HTML; only our own style sheet is
// trusted, as CSS.
var (
	//go:embed page.tmpl
	pageTmpl string
	//go:embed wp.tmpl
	wpTmpl string
	//go:embed style.css
	styleCSS string
	// LiveJS is the page's one script: it takes the server-sent events
	// and replaces the main part. The exported file has none.
	//go:embed live.js
	LiveJS string
)

// pageTemplate parses the page's templates on first render: parsing them
// at start-up cost every command, not only web, 0.4 ms.
var pageTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.Must(template.New("web").Funcs(funcs).Parse(pageTmpl)).Parse(wpTmpl))
})

var funcs = template.FuncMap{
	"join":  strings.Join,
	"short": short,
	"clock": func(s string) string {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return s
		}
		return t.UTC().Format("15:04:05.000")
	},
	"okTone": tone,
	"exitTone": func(code int) string {
		if code == 0 {
			return "ok"
		}
		return "bad"
	},
	"sevTone": func(s string) string {
		if s == "warning" {
			return "warn"
		}
		return "bad"
	},
	"statusTone": func(s string) string {
		switch s {
		case pipeline.Pass, "checkpointed":
			return "ok"
		case pipeline.Fail:
			return "bad"
		case pipeline.WaitingDecision:
			return "warn"
		}
		return "mute"
	},
	"rankTone": func(r int) string {
		switch {
		case r <= RankEscalated:
			return "bad"
		case r < RankNext:
			return "warn"
		}
		return "mute"
	},
}

// view is what the page template draws: the page, and whether it is the
// live page (with its script and the token it passes) or an export.
type view struct {
	// Project names the page in its top, drawn before Page is built.
	Project string
	// Page is nil when it could not be built: Err says why.
	Page  *Page
	Err   string
	Live  bool
	Token string
	// Since is the ledger stamp the page was built at: its event stream
	// sends what moved after it.
	Since string
	CSS   template.CSS
}

// Render writes the whole page. A live page loads the script that takes
// updates, with token; an export (live false) has no script at all and
// a policy that forbids every fetch.
func Render(w io.Writer, pg *Page, live bool, token string) error {
	return render(w, "page", view{Project: pg.Project, Page: pg, Live: live, Token: token})
}

// render writes part of the page: "page" is all of it, "top" and "rest"
// its two halves, which the live server sends apart.
func render(w io.Writer, part string, v view) error {
	v.CSS = template.CSS(styleCSS)
	return pageTemplate().ExecuteTemplate(w, part, v)
}

// RenderMain writes the page's main part alone: what a live update
// replaces.
func RenderMain(w io.Writer, pg *Page) error {
	return pageTemplate().ExecuteTemplate(w, "main", pg)
}

// Export writes pg as one self-contained file: the style inline, no
// script, and a policy that forbids every fetch, so it opens offline
// and shows the same evidence as the live page at the time it was built.
func Export(path string, pg *Page) error {
	var b bytes.Buffer
	if err := Render(&b, pg, false, ""); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}
