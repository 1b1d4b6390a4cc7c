package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/pipeline"
	"github.com/agentproto/agentproto/plans"
	"github.com/agentproto/agentproto/web"
)

// webPlan is plan demo of three WPs run with the scripted adapter, then
// verified again and again in process until the ledger holds events
// events of the plan: the page's timeline has a row for each.
func webPlan(b *testing.B, events int) *runner {
	r := newRunner(b)
	write := func(rel, text string) {
		p := filepath.Join(r.dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(text), 0o644)
	}
	write("test.sh", "true\n")
	write("AGENTS.md", "# Definition of done\n")
	write("agentproto.toml", "[dispatch]\nadapter = \"scripted\"\n")
	r.must(r.dir, nil, "git", "add", "-A")
	r.must(r.dir, nil, "git", "commit", "-qm", "project")
	r.must(r.dir, nil, "git", "agentproto", "init")
	r.must(r.dir, nil, "git", "agentproto", "plan", "init", "demo", "--gate", "sh test.sh")
	wps := ""
	for i, own := range []string{"a", "b", "c"} {
		wp := fmt.Sprintf("WP%d", i)
		if i > 0 {
			r.must(r.dir, nil, "git", "agentproto", "plan", "new-wp", "demo", wp)
		}
		wps += fmt.Sprintf("[[wp]]\nid = %q\ntitle = %q\nowns = [\"%s/**\"]\n", wp, own, own)
		if i > 0 {
			wps += "depends_on = [\"WP0\"]\n"
		}
		step, _ := json.Marshal(map[string]string{"op": "write", "path": own + "/x.txt", "content": "x\n"})
		p := filepath.Join(r.dir, ".plans/demo", wp+"-brief.md")
		brief, _ := os.ReadFile(p)
		text := strings.Replace(string(brief), "- (fork): default (choice).", "- input: default stdin.", 1)
		script := string(step) + "\n" + `{"op":"report","report":{"wp":"` + wp + `","files":["` + own + `/x.txt"],"design_choices":[],"wiring":[],"exit_codes":[{"command":"sh test.sh","exit_code":0}]}}`
		os.WriteFile(p, []byte(text+"\n## Script\n```agentproto-script\n"+script+"\n```\n"), 0o644)
	}
	write(".plans/demo/plan.toml", "name = \"demo\"\nbase = \"main\"\ngate = \"sh test.sh\"\n"+wps)
	r.must(r.dir, nil, "git", "agentproto", "plan", "freeze", "demo")
	r.must(r.dir, nil, "git", "agentproto", "dispatch", "demo")

	repo, err := gitrepo.Discover(r.dir)
	if err != nil {
		b.Fatal(err)
	}
	l := gitstore.Open(repo, gitstore.Options{})
	p, err := plans.Load(r.dir, "demo")
	if err != nil {
		b.Fatal(err)
	}
	h, err := plans.ReadHistory(l, "demo")
	if err != nil {
		b.Fatal(err)
	}
	env := &pipeline.Env{Repo: repo, Ledger: l, Project: p, History: h}
	f, err := web.Read(l, "demo", config.Default().Reactions, nil)
	if err != nil {
		b.Fatal(err)
	}
	for n := len(f.Events); n < events; n++ {
		if _, err := env.Verify(fmt.Sprintf("WP%d", n%3), time.Minute); err != nil {
			b.Fatal(err)
		}
	}
	return r
}

// BenchmarkWebFirstPaint: the reviewer's page of a plan of 1,000 events.
// Server: the page read from the ledger, built and rendered, cold (a new
// process: git asked for each WP's diff and log) and warm (the live
// server's next build). Browser (when AGENTPROTO_BROWSER names one): the
// first contentful paint of the page as the browser times it, from the
// request on, and when the whole page was parsed. Target: first paint
// ≤ 200 ms.
func BenchmarkWebFirstPaint(b *testing.B) {
	webFirstPaint(b, webPlan(b, 1000).dir)
}

// webFirstPaint measures the page of plan demo in the repository at dir.
func webFirstPaint(b *testing.B, dir string) {
	repo, err := gitrepo.Discover(dir)
	if err != nil {
		b.Fatal(err)
	}
	l := gitstore.Open(repo, gitstore.Options{})
	objs := &web.GitObjects{Repo: repo}
	var pg *web.Page
	build := func() time.Duration {
		start := time.Now()
		f, err := web.Read(l, "demo", config.Default().Reactions, objs.Blob)
		if err != nil {
			b.Fatal(err)
		}
		pg = web.Build(f, objs)
		var out bytes.Buffer
		if err := web.Render(&out, pg, true, "t"); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	cold := build()
	var warm []time.Duration
	for range 9 {
		warm = append(warm, build())
	}
	if pg.Events < 1000 {
		b.Fatalf("the page has %d events, want 1,000", pg.Events)
	}
	b.ReportMetric(float64(pg.Events), "events")
	b.ReportMetric(ms(cold), "server-cold-ms")
	b.ReportMetric(ms(median(warm)), "server-warm-ms")

	exe := os.Getenv("AGENTPROTO_BROWSER")
	if exe == "" {
		b.Log("AGENTPROTO_BROWSER is not set: no browser first paint")
		return
	}
	// The ledger's stamp moves before each look, so that each page is
	// built anew, and holds still during it, as a real ledger does: a
	// stamp that moved on every call had the page's event stream rebuild
	// the page every poll, on the cores the browser was painting with.
	var stamp atomic.Uint64
	s := &web.Server{Project: "demo", Token: "bench", Stamp: stamp.Load, Load: func() (*web.Page, error) {
		f, err := web.Read(l, "demo", config.Default().Reactions, objs.Blob)
		if err != nil {
			return nil, err
		}
		return web.Build(f, objs), nil
	}}
	ln, err := web.Listen("127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.Serve(ctx, ln)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox)
	actx, cancelA := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelA()
	// First paint is the page's bar, sent before the ledger is read; the
	// page is whole at DOMContentLoaded, also reported.
	var paints, loaded []time.Duration
	for range 9 {
		// A new tab each time: nothing cached in the browser.
		stamp.Add(1)
		tab, cancelT := chromedp.NewContext(actx)
		err := chromedp.Do(tab, chromedp.Navigate(s.URL(ln)), chromedp.WaitVisible("#queue"))
		if err != nil {
			b.Fatal(err)
		}
		// The paint entry is reported after the paint: wait for it.
		at, err := chromedp.Run(tab, chromedp.Evaluate[[]float64](`new Promise(done => {
			const nav = () => performance.getEntriesByType("navigation")[0].domContentLoadedEventEnd;
			const after = fcp => nav() > 0 ? done([fcp, nav()]) : setTimeout(() => after(fcp), 10);
			new PerformanceObserver(l => { for (const e of l.getEntries()) if (e.name === "first-contentful-paint") after(e.startTime); })
				.observe({type: "paint", buffered: true});
			setTimeout(() => done([-1, -1]), 5000);
		})`, chromedp.EvalAwaitPromise))
		cancelT()
		if err != nil || len(at) != 2 || at[0] < 0 {
			b.Fatalf("no first contentful paint: %v", err)
		}
		paints = append(paints, time.Duration(at[0]*float64(time.Millisecond)))
		loaded = append(loaded, time.Duration(at[1]*float64(time.Millisecond)))
	}
	b.Logf("first paints %v; loaded %v", paints, loaded)
	b.ReportMetric(ms(median(paints)), "browser-first-paint-ms")
	b.ReportMetric(ms(median(loaded)), "browser-loaded-ms")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
