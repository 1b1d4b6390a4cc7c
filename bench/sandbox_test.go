package bench

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/agentproto/agentproto/plugins/host"
	"github.com/agentproto/agentproto/plugins/sdk"
	"github.com/agentproto/agentproto/sandbox"
)

// confinedOptions launch the scripted adapter as a session's would be:
// through the launcher, confined to a session policy around dir.
func confinedOptions(b *testing.B, dir string, confined bool) host.LaunchOptions {
	o := host.LaunchOptions{Env: append(pluginEnv(), "TMPDIR="+dir), SocketDir: b.TempDir(), SocketPrefix: "p"}
	if !confined {
		return o
	}
	if s := sandbox.Probe(); s.ABI < sandbox.MinABI {
		b.Skipf("no Landlock ABI %d here", sandbox.MinABI)
	}
	spec := sandbox.SessionSpec{Dir: dir, Home: os.Getenv("HOME"), Path: os.Getenv("PATH"), Adapter: scriptedSpec().Path}
	o.Confine = &host.Confinement{Launcher: filepath.Join(binDir, sandbox.LauncherName), Policy: func(sockets string) (sandbox.Policy, error) {
		spec.Sockets = sockets
		return sandbox.ForSession(spec)
	}}
	return o
}

// BenchmarkSandboxStart: launch + handshake + Describe of the scripted
// adapter confined and unconfined, alternating, medians of 15 each.
// Target: the sandbox adds <= 5 ms to a session's start.
func BenchmarkSandboxStart(b *testing.B) {
	dir := b.TempDir()
	launch := func(confined bool) time.Duration {
		start := time.Now()
		c, err := host.Launch(scriptedSpec(), confinedOptions(b, dir, confined))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.Describe(context.Background()); err != nil {
			b.Fatal(err)
		}
		d := time.Since(start)
		c.Kill()
		return d
	}
	for i := 0; i < b.N; i++ {
		var on, off []time.Duration
		for k := 0; k < 15; k++ {
			off = append(off, launch(false))
			on = append(on, launch(true))
		}
		b.ReportMetric(millis(median(off)), "unconfined-ms")
		b.ReportMetric(millis(median(on)), "confined-ms")
		b.ReportMetric(millis(median(on)-median(off)), "overhead-ms(target<=5)")
	}
}

// turnScript is a turn that does what agents do most: run a shell that
// opens, reads and writes files.
const turnScript = "```agentproto-script\n" +
	`{"op":"run","cmd":"for i in 1 2 3 4 5 6 7 8 9 10; do cat /etc/hostname > f.$i; ls > /dev/null; done; rm -f f.*"}` + "\n" +
	`{"op":"say","text":"done"}` + "\n```"

// BenchmarkSandboxTurn: prompt to turn end of that turn in a confined and
// an unconfined session, alternating, medians of 21 each. Target: the
// per-turn overhead is within noise.
func BenchmarkSandboxTurn(b *testing.B) {
	type sess struct {
		c     *host.Client
		ended chan struct{}
	}
	open := func(confined bool) sess {
		dir := b.TempDir()
		c, err := host.Launch(scriptedSpec(), confinedOptions(b, dir, confined))
		if err != nil {
			b.Fatal(err)
		}
		if err := c.Start(context.Background(), sdk.StartRequest{SessionID: "bench", Dir: dir}); err != nil {
			b.Fatal(err)
		}
		s := sess{c: c, ended: make(chan struct{}, 64)}
		go c.Events(context.Background(), 0, func(e *host.Event) error {
			if e.Kind == host.TurnEnded {
				s.ended <- struct{}{}
			}
			return nil
		})
		return s
	}
	turn := func(s sess) time.Duration {
		start := time.Now()
		if err := s.c.Prompt(context.Background(), turnScript, false); err != nil {
			b.Fatal(err)
		}
		select {
		case <-s.ended:
		case <-time.After(30 * time.Second):
			b.Fatal("no turn end")
		}
		return time.Since(start)
	}
	on, off := open(true), open(false)
	defer on.c.Kill()
	defer off.c.Kill()
	turn(on)
	turn(off)
	for i := 0; i < b.N; i++ {
		var don, doff []time.Duration
		for k := 0; k < 21; k++ {
			doff = append(doff, turn(off))
			don = append(don, turn(on))
		}
		b.ReportMetric(millis(median(doff)), "unconfined-turn-ms")
		b.ReportMetric(millis(median(don)), "confined-turn-ms")
		b.ReportMetric(median(don).Seconds()/median(doff).Seconds(), "confined/unconfined")
	}
}

func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// BenchmarkSandboxGate: a gate of about 50 ms and one of about 1 s (a
// shell writing and reading files) run as a plain child process (as
// gates ran before), held by the launcher unconfined, and confined as the
// judges run agent-written code now; alternating, medians of 9 each.
func BenchmarkSandboxGate(b *testing.B) {
	if s := sandbox.Probe(); s.ABI < sandbox.MinABI {
		b.Skipf("no Landlock ABI %d here", sandbox.MinABI)
	}
	defer sandbox.ConfigureJudged(func() sandbox.JudgedConfig { return sandbox.JudgedConfig{Mode: sandbox.ModeAuto} })
	dir := b.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	run := func(mode sandbox.Mode, loops int) time.Duration {
		sandbox.ConfigureJudged(func() sandbox.JudgedConfig { return sandbox.JudgedConfig{Mode: mode} })
		script := "i=0; while [ $i -lt " + strconv.Itoa(loops) + " ]; do cat /etc/hostname > f; ls > /dev/null; i=$((i+1)); done"
		start := time.Now()
		if mode == "" { // as gates ran before: a plain child process
			cmd := exec.Command("sh", "-c", script)
			cmd.Dir, cmd.Env = dir, env
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%v %s", err, out)
			}
			return time.Since(start)
		}
		cmd, _, done, err := sandbox.JudgedCommand(context.Background(), dir, env, nil, "sh", "-c", script)
		if err != nil {
			b.Fatal(err)
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v %s", err, out)
		}
		done()
		return time.Since(start)
	}
	for i := 0; i < b.N; i++ {
		for _, g := range []struct {
			name  string
			loops int
		}{{"50ms", 30}, {"1s", 600}} {
			var on, held, bare []time.Duration
			for k := 0; k < 9; k++ {
				bare = append(bare, run("", g.loops))
				held = append(held, run(sandbox.ModeOff, g.loops))
				on = append(on, run(sandbox.ModeAuto, g.loops))
			}
			b.ReportMetric(millis(median(bare)), g.name+"-plain-ms")
			b.ReportMetric(millis(median(held)), g.name+"-held-unconfined-ms")
			b.ReportMetric(millis(median(on)), g.name+"-confined-ms")
			b.ReportMetric(median(on).Seconds()/median(bare).Seconds(), g.name+"-confined/plain")
		}
	}
}
