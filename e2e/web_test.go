package e2e

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hostileReport is agent text that would run in a page that did not
// escape it.
const hostileReport = `<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">`

// webPlan runs plan demo of three work packages with the scripted
// adapter: WP0 passes, WP1 writes outside its perimeter (its verify
// fails) and reports hostile text, WP2 passes; then review runs and finds
// WP1 unverified.
func webPlan(t *testing.T) string {
	t.Helper()
	scripts := map[string]string{}
	for wp, own := range map[string]string{"WP0": "a", "WP1": "b", "WP2": "c"} {
		steps := writeStep(own+"/x.txt", "x\n")
		files := `"` + own + `/x.txt"`
		choice := "plain"
		if wp == "WP1" {
			steps += "\n" + writeStep("stray-b.txt", "not mine\n") // outside its perimeter
			choice = strings.ReplaceAll(hostileReport, `"`, `\"`)
		}
		if wp == "WP2" { // a test that proves nothing: review finds it
			steps += "\n" + writeStep("c/x_test.go", "package c\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {\n\tt.Skip()\n}\n")
			files += `,"c/x_test.go"`
		}
		if wp == "WP0" { // what its turn cost, as an agent reports it
			steps += "\n" + `{"op":"usage","usage":{"input":1000,"output":80,"cost":0.0125,"final":true}}`
		}
		scripts[wp] = steps + "\n" + `{"op":"report","report":{"wp":"` + wp + `","files":[` + files + `],"design_choices":["` + choice + `"],"wiring":[],"exit_codes":[{"command":"sh test.sh","exit_code":0}]}}`
	}
	// WP1's stray write must reach the disk for verify to fail it: the
	// sandbox is widened to the worktree (narrowed, the write is refused).
	dir := scriptedPlan(t, map[string]string{"agentproto.toml": "[dispatch]\nadapter = \"scripted\"\n" + sandboxWorktree},
		"[[wp]]\nid = \"WP0\"\ntitle = \"a\"\nowns = [\"a/**\"]\n"+
			"[[wp]]\nid = \"WP1\"\ntitle = \"b\"\nowns = [\"b/**\"]\ndepends_on = [\"WP0\"]\n"+
			"[[wp]]\nid = \"WP2\"\ntitle = \"c\"\nowns = [\"c/**\"]\ndepends_on = [\"WP0\"]\n", scripts)
	must(t, dir, "git", "agentproto", "dispatch", "demo", "--wp", "WP0")
	if _, _, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo"); exitCode(err) != 1 {
		t.Fatalf("dispatch: exit %d, want 1 (WP1 fails)", exitCode(err))
	}
	must(t, dir, "git", "agentproto", "checkpoint", "demo", "WP0")
	must(t, dir, "git", "agentproto", "checkpoint", "demo", "WP2")
	if out, errOut, err := sh(t, dir, nil, "git", "agentproto", "review", "demo"); exitCode(err) != 1 || !strings.Contains(out, "test-no-assertion") {
		t.Fatalf("review: exit %d, want 1 (WP2's test asserts nothing)\n%s%s", exitCode(err), out, errOut)
	}
	return dir
}

// startWeb runs git agentproto web demo and returns the URL it printed.
func startWeb(t *testing.T, dir string) string {
	t.Helper()
	cmd := exec.Command("git", "agentproto", "web", "demo")
	cmd.Dir, cmd.Env = dir, gitEnv(homeOf(t))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			t.Error("git agentproto web did not stop on Ctrl-C")
		}
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("git agentproto web printed no URL: %v", err)
	}
	_, url, ok := strings.Cut(strings.TrimSpace(line), ": ")
	if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.Contains(url, "/?token=") {
		t.Fatalf("git agentproto web printed %q", line)
	}
	return url
}

// get fetches url with header, returning the status and body.
func get(t *testing.T, url string, header map[string]string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for k, v := range header {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestWebServesThePlanOnlyToItsToken(t *testing.T) {
	dir := webPlan(t)
	url := startWeb(t, dir)
	code, page := get(t, url, nil)
	if code != 200 || !strings.Contains(page, "WP1 failed verification") || !strings.Contains(page, "test-no-assertion") ||
		!strings.Contains(page, "&lt;script&gt;window.__pwned=1&lt;/script&gt;") || strings.Contains(page, "<img") {
		t.Fatalf("the page: %d\n%s", code, page)
	}
	addr := strings.TrimPrefix(url[:strings.Index(url, "/?")], "http://")
	port := addr[strings.LastIndex(addr, ":")+1:]
	for name, c := range map[string]struct {
		url    string
		header map[string]string
	}{
		"no token":       {"http://" + addr + "/", nil},
		"a wrong token":  {url + "x", nil},
		"another host":   {url, map[string]string{"Host": "attacker.example:" + port}},
		"another origin": {url, map[string]string{"Origin": "http://attacker.example"}},
		"events":         {"http://" + addr + "/events", nil},
	} {
		if code, body := get(t, c.url, c.header); code != http.StatusForbidden || !strings.HasPrefix(body, "refused") {
			t.Errorf("%s: %d %s", name, code, body)
		}
	}

	// The export is the same page, static: no script, nothing fetched.
	file := filepath.Join(t.TempDir(), "demo.html")
	out := must(t, dir, "git", "agentproto", "web", "demo", "--export", file)
	b, err := os.ReadFile(file)
	if err != nil || !strings.Contains(out, "wrote "+file) {
		t.Fatalf("export: %v\n%s", err, out)
	}
	if s := string(b); strings.Contains(s, "<script") || !strings.Contains(s, "WP1 failed verification") || !strings.Contains(s, "default-src 'none'") ||
		!strings.Contains(s, "$0.0125") {
		t.Fatalf("the export:\n%s", s)
	}
}
