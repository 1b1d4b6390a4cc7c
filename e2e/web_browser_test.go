package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// browser starts the headless Chromium AGENTPROTO_BROWSER names (make
// test-browser installs Debian's and sets it) and returns a tab's context.
func browser(t *testing.T) context.Context {
	t.Helper()
	exe := os.Getenv("AGENTPROTO_BROWSER")
	if exe == "" {
		t.Skip("AGENTPROTO_BROWSER is not set: make test-browser installs Chromium and runs these tests")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox,
		chromedp.WindowSize(1280, 1600), chromedp.Flag("disable-gpu", true))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelB(); cancelA() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	return ctx
}

// within runs steps with a bound, so that a wait that never ends fails.
func within(t *testing.T, ctx context.Context, d time.Duration, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	if err := chromedp.Do(c, steps...); err != nil {
		t.Fatal(err)
	}
}

// text is the rendered text of the first element sel selects.
func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(sel))
	if err != nil {
		t.Fatalf("text of %s: %v", sel, err)
	}
	return s
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// artifacts is where the screenshots go: AGENTPROTO_ARTIFACTS, else a
// folder under the system's temporary directory; never the repository.
func artifacts(t *testing.T) string {
	dir := os.Getenv("AGENTPROTO_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "agentproto-artifacts")
	}
	dir = filepath.Join(dir, "web")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(artifacts(t), name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// wpWorktree is the worktree path of a WP, from git's own list.
func wpWorktree(t *testing.T, dir, slug string) string {
	for _, line := range strings.Split(must(t, dir, "git", "worktree", "list", "--porcelain"), "\n") {
		if p, ok := strings.CutPrefix(line, "worktree "); ok && filepath.Base(p) == slug {
			return p
		}
	}
	t.Fatalf("no worktree %s", slug)
	return ""
}

func TestWebPageInARealBrowser(t *testing.T) {
	ctx := browser(t)
	dir := webPlan(t)
	url := startWeb(t, dir)

	// The page loads and shows the plan: three WPs, WP1's failed verify
	// first in the queue, review's finding, and the cost line.
	within(t, ctx, 30*time.Second, chromedp.Navigate(url), chromedp.WaitVisible("#queue li"))
	eval[int](t, ctx, `window.__marker = 42`)
	screenshot(t, ctx, "page.png")
	queue, wp1, review, summary := text(t, ctx, "#queue"), text(t, ctx, "#wp-WP1"), text(t, ctx, "#review"), text(t, ctx, "#summary")
	if wps := eval[int](t, ctx, `document.querySelectorAll("article.wp").length`); wps != 3 ||
		!strings.HasPrefix(strings.TrimSpace(text(t, ctx, "#queue li")), "failed WP1 failed verification") || !strings.Contains(queue, "stray-b.txt") ||
		!strings.Contains(wp1, "verify: fail") || !strings.Contains(review, "test-no-assertion") {
		t.Fatalf("the page: %d WPs\nqueue: %s\nWP1: %s\nreview: %s", wps, queue, wp1, review)
	}
	// WP0's agent reported what its turn cost; the others reported
	// nothing, which counts as unknown, never as zero.
	if !strings.Contains(summary, "cost") || !strings.Contains(summary, "$0.0125") || !strings.Contains(summary, "unknown") {
		t.Fatalf("the cost line: %s", summary)
	}

	// The agent's report holding <script> and <img onerror> is text.
	pwned := eval[bool](t, ctx, `window.__pwned !== undefined`)
	elems := eval[int](t, ctx, `document.querySelectorAll("main img, main script").length`)
	if report := text(t, ctx, "#report-WP1 .report"); pwned || elems != 0 || !strings.Contains(report, hostileReport) {
		t.Fatalf("agent text: pwned %v, %d img/script elements in main, report text %q", pwned, elems, report)
	}

	// A live update: WP1's stray file is removed and WP1 verified again;
	// the page shows it pass without a reload (its marker survives).
	if err := os.Remove(filepath.Join(wpWorktree(t, dir, "demo-wp1"), "stray-b.txt")); err != nil {
		t.Fatal(err)
	}
	must(t, dir, "git", "agentproto", "verify", "demo", "WP1")
	within(t, ctx, 20*time.Second, chromedp.WaitVisible(`#wp-WP1[data-status="pass"]`))
	screenshot(t, ctx, "page-updated.png")
	queue = text(t, ctx, "#queue")
	if marker, updates := eval[int](t, ctx, `window.__marker`), eval[string](t, ctx, `document.body.dataset.updates || ""`); marker != 42 || updates == "" || strings.Contains(queue, "WP1 failed verification") {
		t.Fatalf("after the update: marker %d (a reload loses it), updates %q, queue %s", marker, updates, queue)
	}
	liveWPs := text(t, ctx, "#wps")

	// The exported file opens from file:// with the network off, fetches
	// nothing, and shows what the live page shows.
	file := filepath.Join(t.TempDir(), "demo.html")
	must(t, dir, "git", "agentproto", "web", "demo", "--export", file)
	tab, cancel := chromedp.NewContext(ctx)
	defer cancel()
	if err := chromedp.Do(tab); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(tab, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(tab, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
		MatchedNetworkConditions: []*network.Conditions{{Offline: true}}}); err != nil {
		t.Fatal(err)
	}
	var fetched atomic.Int32
	go func() {
		for ev, err := range chromedp.Events(tab, network.RequestWillBeSent) {
			if err != nil {
				return
			}
			if ev.Request.URL != "file://"+file {
				fetched.Add(1)
				t.Logf("the export fetched %s", ev.Request.URL)
			}
		}
	}()
	within(t, tab, 20*time.Second, chromedp.Navigate("file://"+file), chromedp.WaitVisible("#queue"))
	screenshot(t, tab, "export.png")
	if exQueue, exWPs := text(t, tab, "#queue"), text(t, tab, "#wps"); exQueue != queue || exWPs != liveWPs {
		t.Fatalf("the export differs from the live page\nexport queue: %s\nlive queue: %s", exQueue, queue)
	}
	if scripts := eval[int](t, tab, `document.scripts.length`); scripts != 0 || fetched.Load() != 0 {
		t.Fatalf("the export has %d scripts and fetched %d things", scripts, fetched.Load())
	}
}
