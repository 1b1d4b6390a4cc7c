package launch

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/fault"
)

// onPath puts executables named agentproto-adapter-NAME first on PATH, the
// way adapters are installed; Resolve only finds them, it runs nothing.
func onPath(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, "agentproto-adapter-"+n), []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return dir
}

func testConfig(t *testing.T) config.Config {
	t.Helper()
	cfg, err := config.Parse([]byte(`
[plugins.alpha]
options = { sandbox = "read-only", effort = "low" }
[plugins.beta]
options = { color = "never" }
[profiles.cheap]
adapter = "alpha"
model = "small-1"
auth = "api-key"
key_env = "LAUNCH_TEST_KEY"
options = { effort = "high" }
[profiles.plain]
adapter = "beta"
auth = "none"
`), "x.toml")
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestResolve(t *testing.T) {
	dir := onPath(t, "alpha", "beta", "gamma")
	cfg := testConfig(t)
	cases := []struct {
		name string
		req  Request
		want Resolved
	}{
		{"a profile names adapter, model and key", Request{Profile: "cheap"},
			Resolved{Adapter: "alpha", Profile: "cheap", Model: "small-1", KeyEnv: "LAUNCH_TEST_KEY",
				Options: map[string]string{"sandbox": "read-only", "effort": "high"}}},
		{"a profile wins over the adapter", Request{Profile: "plain", Adapter: "alpha"},
			Resolved{Adapter: "beta", Profile: "plain", Options: map[string]string{"color": "never"}}},
		{"--model wins over the profile's", Request{Profile: "cheap", Model: "big-2"},
			Resolved{Adapter: "alpha", Profile: "cheap", Model: "big-2", KeyEnv: "LAUNCH_TEST_KEY",
				Options: map[string]string{"sandbox": "read-only", "effort": "high"}}},
		{"user options win over both layers", Request{Profile: "cheap", User: map[string]string{"effort": "max", "extra": "1"}},
			Resolved{Adapter: "alpha", Profile: "cheap", Model: "small-1", KeyEnv: "LAUNCH_TEST_KEY",
				Options: map[string]string{"sandbox": "read-only", "effort": "max", "extra": "1"}}},
		{"an adapter alone gets its plugin options", Request{Adapter: "alpha", Model: "m"},
			Resolved{Adapter: "alpha", Model: "m", Options: map[string]string{"sandbox": "read-only", "effort": "low"}}},
		{"the default adapter when nothing is named", Request{DefaultAdapter: "gamma"},
			Resolved{Adapter: "gamma", Options: map[string]string{}}},
		{"a named adapter wins over the default", Request{Adapter: "beta", DefaultAdapter: "gamma"},
			Resolved{Adapter: "beta", Options: map[string]string{"color": "never"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := Resolve(cfg, t.TempDir(), c.req)
			if err != nil {
				t.Fatal(err)
			}
			if r.Adapter != c.want.Adapter || r.Profile != c.want.Profile || r.Model != c.want.Model || r.KeyEnv != c.want.KeyEnv {
				t.Fatalf("got %s/%s/%s/%s, want %s/%s/%s/%s", r.Adapter, r.Profile, r.Model, r.KeyEnv,
					c.want.Adapter, c.want.Profile, c.want.Model, c.want.KeyEnv)
			}
			if !reflect.DeepEqual(r.Options, c.want.Options) {
				t.Fatalf("options = %v, want %v", r.Options, c.want.Options)
			}
			if r.Found.Path != filepath.Join(dir, "agentproto-adapter-"+c.want.Adapter) {
				t.Fatalf("found %s", r.Found.Path)
			}
			sa := r.StartArgs()
			if sa.Adapter != r.Adapter || sa.Path != r.Found.Path || sa.Model != r.Model || sa.Profile != r.Profile ||
				!reflect.DeepEqual(sa.Options, r.Options) || !reflect.DeepEqual(sa.AllowEnv, r.AllowEnv()) {
				t.Fatalf("start args %+v do not carry the launch %+v", sa, r)
			}
			if (r.KeyEnv == "") != (len(sa.AllowEnv) == 0) {
				t.Fatalf("allow env %v for key %q", sa.AllowEnv, r.KeyEnv)
			}
		})
	}
}

func TestResolveRefuses(t *testing.T) {
	onPath(t, "alpha", "beta")
	cfg := testConfig(t)
	cases := []struct {
		name string
		req  Request
		kind fault.Kind
		want string
	}{
		{"nothing named", Request{}, fault.Invalid, "no adapter"},
		{"an unknown profile", Request{Profile: "nope"}, fault.Invalid, `no profile "nope" (configured: cheap, plain)`},
		{"a missing adapter binary", Request{Adapter: "delta"}, fault.Invalid, `no adapter "delta"`},
		{"the key variable unset", Request{Profile: "cheap", Env: []string{"PATH=/bin", "LAUNCH_TEST_KEY="}}, fault.Refused,
			"profile cheap needs $LAUNCH_TEST_KEY, which is not set"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := Resolve(cfg, t.TempDir(), c.req)
			if err == nil || !strings.Contains(err.Error(), c.want) || fault.KindOf(err) != c.kind {
				t.Fatalf("got %+v, %v (kind %v), want %q kind %v", r, err, fault.KindOf(err), c.want, c.kind)
			}
		})
	}
	if _, err := Resolve(cfg, t.TempDir(), Request{}); !errors.Is(err, ErrNoAdapter) {
		t.Fatalf("nothing named: %v is not ErrNoAdapter", err)
	}
	// The key is looked up in the environment the session gets, the last
	// setting winning as it does for the process; without an environment
	// (a preflight already checked it) it is not looked up.
	if _, err := Resolve(cfg, t.TempDir(), Request{Profile: "cheap", Env: []string{"LAUNCH_TEST_KEY=", "LAUNCH_TEST_KEY=k"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := Resolve(cfg, t.TempDir(), Request{Profile: "cheap"}); err != nil {
		t.Fatal(err)
	}
}

func TestDescribe(t *testing.T) {
	if got := (&Resolved{Adapter: "alpha"}).Describe(); got != "alpha" {
		t.Fatal(got)
	}
	if got := (&Resolved{Adapter: "alpha", Profile: "cheap"}).Describe(); got != "profile cheap, alpha" {
		t.Fatal(got)
	}
}

// Options from a committed agentproto.toml name what the adapter runs: the
// launch is refused until they are trusted, unless the user's own options
// replace every one of them.
func TestRequireTrustOfCommittedOptions(t *testing.T) {
	onPath(t, "alpha")
	root := t.TempDir()
	text := "[plugins.alpha]\noptions = { command = \"./run.sh\" }\n"
	if err := os.WriteFile(filepath.Join(root, config.FileName), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", config.FileName}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	cfg, err := config.Parse([]byte(text), config.FileName)
	if err != nil {
		t.Fatal(err)
	}
	common := filepath.Join(root, ".git")
	r, err := Resolve(cfg, root, Request{Adapter: "alpha"})
	if err != nil {
		t.Fatal(err)
	}
	err = r.RequireTrust(cfg, root, common, root, "")
	if fault.KindOf(err) != fault.Refused || !strings.Contains(err.Error(), "[plugins.alpha]") {
		t.Fatalf("committed options ran untrusted: %v", err)
	}
	mine, err := Resolve(cfg, root, Request{Adapter: "alpha", User: map[string]string{"command": "./mine.sh"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := mine.RequireTrust(cfg, root, common, root, ""); err != nil {
		t.Fatalf("the user's own options were refused: %v", err)
	}
	if mine.Options["command"] != "./mine.sh" {
		t.Fatalf("options = %v", mine.Options)
	}
}

// A prompt-switched profile gets its switch with the model filled in;
// adapters that take the model on their command line never get one.
func TestResolveFillsInTheModelSwitch(t *testing.T) {
	onPath(t, "acp", "codex")
	home := t.TempDir()
	t.Setenv("HOME", home)
	cfg, err := config.Parse([]byte(`
[profiles.hermes]
adapter = "acp"
model = "openrouter/cheap"
auth = "none"
model_switch = "/model {model}"
model_switch_expect = "Model switched to: {model}"
error_log = "~/.hermes/logs/errors.log"
[profiles.pinned]
adapter = "codex"
model = "gpt-5-mini"
auth = "none"
model_switch = "/model {model}"
model_switch_expect = "switched"
[profiles.nomodel]
adapter = "acp"
auth = "none"
model_switch = "/model {model}"
model_switch_expect = "ok"
`), "x.toml")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Resolve(cfg, ".", Request{Profile: "hermes", Model: "openrouter/other"})
	if err != nil {
		t.Fatal(err)
	}
	a := r.StartArgs()
	if a.ModelSwitch != "/model openrouter/other" || a.ModelSwitchExpect != "Model switched to: openrouter/other" ||
		a.ErrorLog != filepath.Join(home, ".hermes/logs/errors.log") {
		t.Fatalf("start args: %+v", a)
	}
	r, err = Resolve(cfg, ".", Request{Profile: "pinned"})
	if err != nil || r.StartArgs().ModelSwitch != "" || r.StartArgs().ModelSwitchExpect != "" {
		t.Fatalf("a model pinned at launch got a switch: %+v %v", r, err)
	}
	if _, err := Resolve(cfg, ".", Request{Profile: "nomodel"}); fault.KindOf(err) != fault.Invalid || !strings.Contains(err.Error(), "no model to switch to") {
		t.Fatalf("no model: %v", err)
	}
}

// A profile's wedge_after wins over [sessions] wedge_after, which a
// session without one (or without a profile) gets.
func TestResolveWedgeAfter(t *testing.T) {
	onPath(t, "acp")
	cfg, err := config.Parse([]byte(`
[sessions]
wedge_after = "3m"
[profiles.quick]
adapter = "acp"
auth = "none"
wedge_after = "20s"
[profiles.plain]
adapter = "acp"
auth = "none"
`), "x.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		req  Request
		want time.Duration
	}{{Request{Profile: "quick"}, 20 * time.Second}, {Request{Profile: "plain"}, 3 * time.Minute}, {Request{Adapter: "acp"}, 3 * time.Minute}} {
		r, err := Resolve(cfg, ".", c.req)
		if err != nil || r.StartArgs().WedgeAfter != c.want {
			t.Fatalf("%+v: %+v %v, want %v", c.req, r, err, c.want)
		}
	}
	if def := config.Default().Sessions.WedgeAfter.Duration; def != 10*time.Minute {
		t.Fatalf("default wedge_after %v", def)
	}
}
