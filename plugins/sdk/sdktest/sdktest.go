// Package sdktest is the conformance suite for agentproto adapters. Run it
// from your adapter's own tests, in process and against the built binary:
//
//	func TestConformance(t *testing.T) {
//		sdktest.Run(t, myAdapter{}, sdktest.Options{Prompt: "say hi"})
//	}
//	func TestConformanceBinary(t *testing.T) {
//		sdktest.RunBinary(t, "./bin/agentproto-adapter-mine", sdktest.Options{Prompt: "say hi"})
//	}
package sdktest

import (
	"context"
	"errors"
	"io"
	"os"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"github.com/agentproto/agentproto/plugins/host"
	"github.com/agentproto/agentproto/plugins/internal/proto"
	"github.com/agentproto/agentproto/plugins/internal/wire"
	"github.com/agentproto/agentproto/plugins/sdk"
)

// Options adapt the suite to an adapter.
type Options struct {
	// Prompt must make the agent finish one turn with some output.
	Prompt string
	// LongPrompt must keep a turn running until it is interrupted; the
	// interrupt check runs when it is set and the adapter declares
	// session_interrupt.
	LongPrompt string
	Model      string
	Options    map[string]string
	Env        map[string]string
	// Timeout bounds each wait (default 30s).
	Timeout time.Duration
}

// Run runs the suite against an adapter served in process over gRPC.
func Run(t *testing.T, a sdk.Adapter, o Options) {
	t.Helper()
	// go-plugin's in-process harness logs at debug level by default.
	hclog.DefaultOutput = io.Discard
	newClient := func(t *testing.T) *host.Client {
		client, _ := plugin.TestPluginGRPCConn(t, false, map[string]plugin.Plugin{
			wire.PluginName: &wire.GRPCPlugin{Impl: sdk.NewServer(a)},
		})
		raw, err := client.Dispense(wire.PluginName)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { client.Close() })
		return host.Wrap("in-process", raw.(proto.AdapterClient))
	}
	suite(t, newClient, o)
}

// RunBinary runs the suite against an adapter binary, each case in a real
// plugin subprocess.
func RunBinary(t *testing.T, path string, o Options) {
	t.Helper()
	newClient := func(t *testing.T) *host.Client {
		env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
		c, err := host.Launch(host.Spec{Name: "under-test", Path: path}, host.LaunchOptions{Env: env})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Kill)
		return c
	}
	suite(t, newClient, o)
}

func suite(t *testing.T, newClient func(*testing.T) *host.Client, o Options) {
	if o.Timeout == 0 {
		o.Timeout = 30 * time.Second
	}
	t.Run("describe", func(t *testing.T) {
		c := newClient(t)
		info, err := c.Describe(ctx(t, o))
		if err != nil {
			t.Fatal(err)
		}
		if info.Name == "" || info.Version == "" {
			t.Errorf("Describe must name the adapter and its version: %+v", info)
		}
		seen := map[string]bool{}
		for _, c := range info.Capabilities {
			if !sdk.ValidCapability(c) {
				t.Errorf("capability %q is not in the closed set %v", c, sdk.Capabilities)
			}
			if seen[c] {
				t.Errorf("capability %q declared twice", c)
			}
			seen[c] = true
		}
		for _, m := range info.AuthMethods {
			if m != "api-key" && m != "subscription" && m != "none" {
				t.Errorf("auth method %q is not api-key, subscription or none", m)
			}
		}
		if err := c.Ping(ctx(t, o)); err != nil {
			t.Errorf("Ping: %v", err)
		}
	})
	t.Run("prompt before start is a diagnostic", func(t *testing.T) {
		c := newClient(t)
		err := c.Prompt(ctx(t, o), o.Prompt, false)
		if err == nil {
			t.Fatal("Prompt before StartSession succeeded")
		}
	})
	t.Run("turns, replay and terminate", func(t *testing.T) {
		c := newClient(t)
		dir := t.TempDir()
		ev := follow(t, c, o)
		if err := c.Start(ctx(t, o), sdk.StartRequest{SessionID: "conformance", Dir: dir, Model: o.Model, Env: o.Env, InitialPrompt: o.Prompt, Options: o.Options}); err != nil {
			t.Fatalf("StartSession: %v", err)
		}
		first := ev.until(t, host.TurnEnded)
		if !hasKind(first, host.TurnStarted) {
			t.Error("the first turn ended without a turn-started event")
		}
		if !hasKind(first, host.Output) {
			t.Error("the first turn produced no output (an empty turn)")
		}
		if err := c.Prompt(ctx(t, o), o.Prompt, false); err != nil {
			t.Fatalf("second Prompt: %v", err)
		}
		ev.until(t, host.TurnEnded)
		all := ev.all()
		info, err := c.Describe(ctx(t, o))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range all {
			for _, cap := range e.Capabilities {
				if e.Kind == host.CapabilitiesDeclared && !contains(info.Capabilities, cap) {
					t.Errorf("the session declared %s, which Describe does not (%v)", cap, info.Capabilities)
				}
			}
		}
		for i := 1; i < len(all); i++ {
			if all[i].Seq <= all[i-1].Seq {
				t.Fatalf("sequence numbers do not increase: %d then %d", all[i-1].Seq, all[i].Seq)
			}
		}
		// A host that reconnects gets what followed the last seq it saw.
		k := all[len(all)/2].Seq
		var replay []*host.Event
		cctx, cancel := context.WithCancel(context.Background())
		go func() {
			time.Sleep(500 * time.Millisecond)
			cancel()
		}()
		c.Events(cctx, k, func(e *host.Event) error {
			replay = append(replay, e)
			if len(replay) == 1 {
				cancel()
			}
			return nil
		})
		if len(replay) == 0 || replay[0].Seq != k+1 {
			t.Errorf("replay after seq %d started at %v", k, replay)
		}
		if err := c.Terminate(ctx(t, o)); err != nil {
			t.Fatalf("Terminate: %v", err)
		}
		ev.until(t, host.Exited)
	})
	t.Run("interrupt", func(t *testing.T) {
		c := newClient(t)
		info, err := c.Describe(ctx(t, o))
		if err != nil {
			t.Fatal(err)
		}
		if o.LongPrompt == "" || !contains(info.Capabilities, sdk.CapInterrupt) {
			t.Skip("no LongPrompt, or the adapter does not declare session_interrupt")
		}
		ev := follow(t, c, o)
		if err := c.Start(ctx(t, o), sdk.StartRequest{SessionID: "interrupt", Dir: t.TempDir(), Model: o.Model, Env: o.Env, InitialPrompt: o.LongPrompt, Options: o.Options}); err != nil {
			t.Fatal(err)
		}
		if caps, ok := declaredBy(ev.until(t, host.TurnStarted)); ok && !contains(caps, sdk.CapInterrupt) {
			t.Skip("the session declares no session_interrupt")
		}
		if err := c.Prompt(ctx(t, o), "", true); err != nil {
			t.Fatalf("interrupt: %v", err)
		}
		ev.until(t, host.TurnEnded)
		c.Terminate(ctx(t, o))
	})
}

// declaredBy returns the last capabilities a session declared in evs.
func declaredBy(evs []*host.Event) (caps []string, ok bool) {
	for _, e := range evs {
		if e.Kind == host.CapabilitiesDeclared {
			caps, ok = e.Capabilities, true
		}
	}
	return caps, ok
}

func ctx(t *testing.T, o Options) context.Context {
	c, cancel := context.WithTimeout(context.Background(), o.Timeout)
	t.Cleanup(cancel)
	return c
}

// follower collects a session's events in the background.
type follower struct {
	ch      chan *host.Event
	seen    []*host.Event
	timeout time.Duration
}

func follow(t *testing.T, c *host.Client, o Options) *follower {
	f := &follower{ch: make(chan *host.Event, 4096), timeout: o.Timeout}
	cctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		defer close(f.ch)
		c.Events(cctx, 0, func(e *host.Event) error {
			select {
			case f.ch <- e:
				return nil
			case <-cctx.Done():
				return errors.New("stopped")
			}
		})
	}()
	return f
}

// until waits for an event of kind and returns the events since the last
// call.
func (f *follower) until(t *testing.T, kind host.EventKind) []*host.Event {
	t.Helper()
	var got []*host.Event
	deadline := time.After(f.timeout)
	for {
		select {
		case e, ok := <-f.ch:
			if !ok {
				t.Fatalf("the event stream ended before %v (saw %v)", kind, kinds(got))
			}
			got = append(got, e)
			f.seen = append(f.seen, e)
			if e.Kind == kind {
				return got
			}
		case <-deadline:
			t.Fatalf("no %v within %v (saw %v)", kind, f.timeout, kinds(got))
		}
	}
}

func (f *follower) all() []*host.Event { return f.seen }

func hasKind(evs []*host.Event, k host.EventKind) bool {
	for _, e := range evs {
		if e.Kind == k {
			return true
		}
	}
	return false
}

func kinds(evs []*host.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Kind.String())
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
