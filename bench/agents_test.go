package bench

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentproto/agentproto/internal/fakemodel"
	"github.com/agentproto/agentproto/plugins/host"
	"github.com/agentproto/agentproto/plugins/sdk"
)

// cliAdapters builds the claude-code and codex adapters next to the others.
var cliAdapters = sync.OnceValue(func() error {
	return exec.Command("go", "build", "-o", binDir+string(filepath.Separator),
		"github.com/agentproto/agentproto/cmd/agentproto-adapter-claude-code",
		"github.com/agentproto/agentproto/cmd/agentproto-adapter-codex").Run()
})

// realAgent is one real CLI set up against a fake provider, as the
// adapter runs it and as a user would run it alone.
type realAgent struct {
	adapter string
	binary  string
	model   string
	env     []string
	dir     string
	bare    []string // the CLI's arguments for one turn, prompt on stdin
}

func newRealAgent(b *testing.B, cli string) *realAgent {
	bins := os.Getenv("AGENTPROTO_REAL_AGENTS")
	if bins == "" {
		b.Skip("the real agent CLIs are not installed: make test-agents installs them (AGENTPROTO_REAL_AGENTS names their directory)")
	}
	if err := cliAdapters(); err != nil {
		b.Fatal(err)
	}
	api := fakemodel.New(b)
	home, dir := b.TempDir(), b.TempDir()
	if err := exec.Command("git", "init", "-q", dir).Run(); err != nil {
		b.Fatal(err)
	}
	a := &realAgent{binary: filepath.Join(bins, cli), dir: dir}
	var cfg, key string
	switch cli {
	case "claude":
		a.adapter, a.model, key = "claude-code", "claude-sonnet-4-5", "ANTHROPIC_API_KEY"
		cfg = filepath.Join(home, ".claude", "settings.json")
		os.MkdirAll(filepath.Dir(cfg), 0o700)
		os.WriteFile(cfg, []byte(api.ClaudeSettings(1)), 0o600)
		a.bare = []string{"-p", "--output-format", "stream-json", "--verbose", "--permission-mode", "acceptEdits", "--model", a.model}
	case "codex":
		a.adapter, a.model, key = "codex", "gpt-5.1-codex", "OPENAI_API_KEY"
		cfg = filepath.Join(home, ".codex", "config.toml")
		os.MkdirAll(filepath.Dir(cfg), 0o700)
		os.WriteFile(cfg, []byte(api.CodexConfig(a.model, key, 1)), 0o600)
		a.bare = []string{"exec", "--json", "-c", `sandbox_mode="workspace-write"`, "-m", a.model, "-"}
	}
	a.env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, key + "=" + fakemodel.Key}
	return a
}

// bareTurn runs the CLI alone: time to its first assistant line, and to
// its exit.
func (a *realAgent) bareTurn(b *testing.B) (first, turn time.Duration) {
	cmd := exec.Command(a.binary, a.bare...)
	cmd.Dir, cmd.Env, cmd.Stdin = a.dir, a.env, strings.NewReader("say done")
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		if first == 0 && strings.Contains(sc.Text(), "Done.") {
			first = time.Since(start)
		}
	}
	if err := cmd.Wait(); err != nil || first == 0 {
		b.Fatalf("%s alone: %v (no answer: %v)", a.binary, err, first == 0)
	}
	return first, time.Since(start)
}

// adapterTurn launches the adapter plugin and runs one turn through it:
// time to the first output holding the answer, and to the turn's end.
func (a *realAgent) adapterTurn(b *testing.B) (first, turn time.Duration) {
	start := time.Now()
	c, err := host.Launch(host.Spec{Name: a.adapter, Path: filepath.Join(binDir, "agentproto-adapter-"+a.adapter)}, host.LaunchOptions{Env: a.env})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Kill()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.Start(ctx, sdk.StartRequest{SessionID: "bench", Dir: a.dir, Model: a.model, InitialPrompt: "say done",
		Options: map[string]string{"binary": a.binary}}); err != nil {
		b.Fatal(err)
	}
	errStop := context.Canceled
	err = c.Events(ctx, 0, func(e *host.Event) error {
		switch {
		case e.Kind == host.Output && first == 0 && strings.Contains(string(e.Data), "Done."):
			first = time.Since(start)
		case e.Kind == host.Error:
			b.Fatalf("the turn failed: %s", e.Text)
		case e.Kind == host.TurnEnded:
			turn = time.Since(start)
			return errStop
		}
		return nil
	})
	if turn == 0 || first == 0 {
		b.Fatalf("the turn did not end with an answer: %v", err)
	}
	c.Terminate(ctx)
	return first, turn
}

// BenchmarkRealAgentTurn: one turn of each real CLI against the loopback
// fake provider, alone and through its agentproto adapter (plugin launch
// included), median of 5 each. The ratio is the adapter's per-turn cost.
func BenchmarkRealAgentTurn(b *testing.B) {
	for _, cli := range []string{"claude", "codex"} {
		b.Run(cli, func(b *testing.B) {
			a := newRealAgent(b, cli)
			a.bareTurn(b) // warm the page cache
			for i := 0; i < b.N; i++ {
				var bf, bt, af, at []time.Duration
				for k := 0; k < 5; k++ {
					f, t := a.bareTurn(b)
					bf, bt = append(bf, f), append(bt, t)
					f, t = a.adapterTurn(b)
					af, at = append(af, f), append(at, t)
				}
				ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
				b.ReportMetric(ms(median(bf)), "alone-first-token-ms")
				b.ReportMetric(ms(median(af)), "adapter-first-token-ms")
				b.ReportMetric(ms(median(bt)), "alone-turn-ms")
				b.ReportMetric(ms(median(at)), "adapter-turn-ms")
				b.ReportMetric(ms(median(at)-median(bt)), "overhead-ms")
				b.ReportMetric(float64(median(at))/float64(median(bt)), "adapter/alone")
			}
		})
	}
}
