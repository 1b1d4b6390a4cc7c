package config

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

func TestDurationsDecodeWithTheirUnit(t *testing.T) {
	cfg, err := Parse([]byte("[dispatch]\ntimeout = \"90s\"\ngate_timeout = \"2m\"\nrate_limit_wait = \"10ms\"\n[sessions]\nidle_exit = \"1h30m\"\n[review]\nmutation_budget = \"0s\"\n[worktree]\nhook_timeout = \"45s\"\n"), "x.toml")
	if err != nil {
		t.Fatal(err)
	}
	got := []time.Duration{cfg.Dispatch.Timeout.Duration, cfg.Dispatch.GateTimeout.Duration, cfg.Dispatch.RateLimitWait.Duration,
		cfg.Sessions.IdleExit.Duration, cfg.Review.MutationBudget.Duration, cfg.Worktree.HookTimeout.Duration, Default().Worktree.HookTimeout.Duration}
	want := []time.Duration{90 * time.Second, 2 * time.Minute, 10 * time.Millisecond, 90 * time.Minute, 0, 45 * time.Second, 10 * time.Minute}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("duration %d = %v, want %v", i, got[i], want[i])
		}
	}
}

// A bare number would be nanoseconds to the TOML decoder; it is refused
// with the key and line named, and so is any other value without a unit.
func TestDurationsWithoutAUnitAreRefused(t *testing.T) {
	cases := []struct{ text, want string }{
		{"[dispatch]\ntimeout = 40\n", `x.toml:2: dispatch.timeout: "40" is not a duration with a unit`},
		{"[dispatch]\n\ngate_timeout = \"30\"\n", `x.toml:3: dispatch.gate_timeout: "30" is not a duration with a unit`},
		{"[sessions]\nidle_exit = \"soon\"\n", `x.toml:2: sessions.idle_exit: "soon" is not a duration`},
		{"[review]\nmutation_budget = true\n", `x.toml:2: review.mutation_budget: "true" is not a duration`},
		{"[dispatch]\ntimeout = \"0s\"\n", `x.toml:2: dispatch.timeout: must be longer than zero`},
		{"[sessions]\nidle_exit = \"-1m\"\n", `x.toml:2: sessions.idle_exit: must be longer than zero`},
		{"[review]\nmutation_budget = \"-1s\"\n", `x.toml:2: review.mutation_budget: must not be negative`},
		{"[dispatch]\nrate_limit_wait = \"-1s\"\n", `x.toml:2: dispatch.rate_limit_wait: must not be negative`},
		{"[dispatch]\ntimeout = [\"1m\"]\n", `x.toml:2:`},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.text), "x.toml")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want %q", c.text, err, c.want)
		}
	}
}

// config show prints durations as a person writes them, in TOML and JSON,
// and what it prints reads back to the same value.
func TestDurationsPrintAsWritten(t *testing.T) {
	for in, want := range map[string]string{"40m": "40m", "60s": "1m", "1h0m0s": "1h", "1h30m": "1h30m", "10ms": "10ms",
		"0s": "0s", "2m30s": "2m30s", "90m": "1h30m", "1.5s": "1.5s"} {
		var d Duration
		if err := d.UnmarshalText([]byte(in)); err != nil {
			t.Fatal(err)
		}
		if d.String() != want {
			t.Errorf("%s prints as %s, want %s", in, d, want)
		}
		var back Duration
		if err := back.UnmarshalText([]byte(d.String())); err != nil || back != d {
			t.Errorf("%s does not read back: %v, %v", d, back, err)
		}
	}
	b, err := json.Marshal(Default().Dispatch)
	if err != nil || !strings.Contains(string(b), `"timeout":"40m"`) || !strings.Contains(string(b), `"rate_limit_wait":"30s"`) {
		t.Fatalf("json = %s, %v", b, err)
	}
	var sb strings.Builder
	if err := toml.NewEncoder(&sb).Encode(Default()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sb.String(), `gate_timeout = "30m"`) {
		t.Fatalf("toml = %s", sb.String())
	}
	again, err := Parse([]byte(sb.String()), "shown")
	if err != nil || !reflect.DeepEqual(again, Default()) {
		t.Fatalf("config show does not read back: %+v, %v", again.Dispatch, err)
	}
}

// FuzzDuration: any text is either refused with the hint, or read as a
// duration whose printed form reads back to the same value.
func FuzzDuration(f *testing.F) {
	for _, s := range []string{"90s", "40m", "1h30m", "10", "", "-1s", "1.5h", "3000000000000000000h", "1m0s", " 2m "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var d Duration
		if err := d.UnmarshalText([]byte(s)); err != nil {
			if !strings.HasSuffix(err.Error(), durationHint) {
				t.Fatalf("%q: error without the hint: %v", s, err)
			}
			return
		}
		var back Duration
		if err := back.UnmarshalText([]byte(d.String())); err != nil || back != d {
			t.Fatalf("%q read as %v printed %q, reads back as %v (%v)", s, d.Duration, d.String(), back.Duration, err)
		}
	})
}
