package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/fault"
)

func TestParseErrorsNameKeyAndLine(t *testing.T) {
	cases := []struct {
		name, text, want string
	}{
		{"unknown key", "[ledger]\npack_threshold = 3\nbogus = 1\n", `x.toml:3: unknown key "ledger.bogus"`},
		{"unknown table", "\n[nope]\na = 1\n", `x.toml:2: unknown key "nope"`},
		{"top-level key", "a = 1\n", `x.toml:1: unknown key "a"`},
		{"wrong type", "[sync]\nremote = 3\n", `x.toml:2: sync.remote: incompatible types`},
		{"bad value", "[ledger]\n\npack_threshold = 0\n", `x.toml:3: ledger.pack_threshold: must be at least 1`},
		{"claims remote an option", "[claims]\nremote = \"--upload-pack=x\"\n", `x.toml:2: claims.remote: "--upload-pack=x" is not a remote name`},
		{"negative", "[ledger]\nauto_maintenance = -1\n", `x.toml:2: ledger.auto_maintenance`},
		{"syntax", "[ledger]\npack_threshold = \n", `x.toml:2:`},
		{"dotted key", "ledger.pack_thresh = 2\n", `x.toml:1: unknown key "ledger.pack_thresh"`},
		{"pass_env not a name", "[gates]\npass_env = [\"A=B\"]\n", `x.toml:2: gates.pass_env: entry 1 ("A=B") is not a variable name`},
		{"pass_env our token", "[gates]\npass_env = [\"JAVA_HOME\", \"GH_*\"]\n", `gates.pass_env: entry 2 ("GH_*") would pass $GH_TOKEN`},
		{"agents' pass_env secret-shaped", "[sessions]\npass_env = [\"GOCACHE\", \"NPM_TOKEN\"]\n", `sessions.pass_env: entry 2 ("NPM_TOKEN") names a secret`},
		{"switch without expect", "[profiles.h]\nadapter = \"acp\"\nauth = \"none\"\nmodel_switch = \"/model {model}\"\n", `profiles.h: model_switch and model_switch_expect go together`},
		{"relative error_log", "[profiles.h]\nadapter = \"acp\"\nauth = \"none\"\nerror_log = \"logs/e.log\"\n", `error_log "logs/e.log" must be an absolute path or start with ~/`},
		{"negative profile wedge_after", "[profiles.h]\nadapter = \"acp\"\nauth = \"none\"\nwedge_after = \"-1m\"\n", `profiles.h: wedge_after -1m must be a positive duration`},
		{"wedge_after without a unit", "[sessions]\nwedge_after = 600\n", `x.toml:2: sessions.wedge_after: "600" is not a duration with a unit`},
		{"zero hook_timeout", "[worktree]\nhook_timeout = \"0s\"\n", `x.toml:2: worktree.hook_timeout: must be longer than zero`},
		{"negative wedge_after", "[sessions]\nwedge_after = \"-1s\"\n", `x.toml:2: sessions.wedge_after: must be "0s" (never) or a positive duration`},
		{"sandbox perimeter", "[sandbox]\nperimeter = \"wide\"\n", `x.toml:2: sandbox.perimeter: "wide" is not narrow or worktree`},
		{"pass_env a key_env", "[gates]\npass_env = [\"LLM_CRED\"]\n[profiles.p]\nadapter = \"codex\"\nauth = \"api-key\"\nkey_env = \"LLM_CRED\"\n", `would pass $LLM_CRED`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.text), "x.toml")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
			if fault.KindOf(err) != fault.Invalid {
				t.Fatalf("kind = %v", fault.KindOf(err))
			}
		})
	}
}

func TestDefaultsAndTemplate(t *testing.T) {
	cfg, err := Parse([]byte(Template), "template")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cfg, Default()) {
		t.Fatalf("template changes defaults: %+v", cfg)
	}
	if cfg, err := Parse([]byte("[gates]\npass_env = [\"NPM_CONFIG_REGISTRY\", \"MYTOOL_*\"]\n"), "x"); err != nil || len(cfg.Gates.PassEnv) != 2 {
		t.Fatalf("pass_env: %+v, %v", cfg.Gates, err)
	}
	cfg, err = Parse([]byte("[ledger]\npack_threshold = 5\n"), "x")
	if err != nil || cfg.Ledger.PackThreshold != 5 || cfg.Sync.Remote != "origin" {
		t.Fatalf("cfg = %+v, %v", cfg, err)
	}
}

func TestLocalProfilesOverrideCommittedOnes(t *testing.T) {
	common := t.TempDir()
	cfg, err := Parse([]byte("[profiles.cheap]\nadapter = \"codex\"\nauth = \"none\"\n[profiles.keep]\nadapter = \"exec\"\nauth = \"none\"\n"), "x")
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(common, "agentproto"), 0o755)
	os.WriteFile(filepath.Join(common, LocalProfiles), []byte("[profiles.cheap]\nadapter = \"claude-code\"\nauth = \"api-key\"\nkey_env = \"ANTHROPIC_API_KEY\"\n"), 0o644)
	merged, err := WithLocal(cfg, common)
	if err != nil {
		t.Fatal(err)
	}
	if merged.Profiles["cheap"].Adapter != "claude-code" || merged.Profiles["keep"].Adapter != "exec" {
		t.Fatalf("merged = %+v", merged.Profiles)
	}
	os.WriteFile(filepath.Join(common, LocalProfiles), []byte("[profiles.bad]\nadapter = \"x\"\nauth = \"api-key\"\n"), 0o644)
	if _, err := WithLocal(cfg, common); err == nil || !strings.Contains(err.Error(), "needs key_env") {
		t.Fatalf("bad local profile: %v", err)
	}
	os.WriteFile(filepath.Join(common, LocalProfiles), []byte("[sync]\nremote = \"x\"\n"), 0o644)
	if _, err := WithLocal(cfg, common); err == nil || !strings.Contains(err.Error(), "unknown key") {
		t.Fatalf("non-profile key in the local file: %v", err)
	}
}

// Effective tells apart the edits a session can see from those it
// cannot: the inert keys, comments and layout drop out; any other key,
// or a file that is no TOML, counts.
func TestEffectiveDropsOnlyInertKeys(t *testing.T) {
	base := "[dispatch]\nadapter = \"scripted\"\n[pr]\nremote = \"origin\"\n"
	eff := func(text string) string {
		e, ok := Effective([]byte(text))
		if !ok {
			return "not TOML"
		}
		return e
	}
	same := []string{
		base + "# a comment\n[e2e]\ncommands = [\"make e2e\"]\n[ledger]\npack_threshold = 8\n",
		"[pr]\ndraft = true\nremote = \"origin\"\n[dispatch]\nadapter = \"scripted\"\n",
	}
	for _, text := range same {
		if eff(text) != eff(base) {
			t.Errorf("%q sets %s, want what %q sets (%s)", text, eff(text), base, eff(base))
		}
	}
	if eff("") != eff("[e2e]\ncommands = [\"x\"]\n") {
		t.Errorf("a file of inert keys alone differs from no file")
	}
	for _, text := range []string{base + "[gates]\npass_env = [\"X\"]\n", base + "host = \"evil.example\"\n", "[dispatch]\nadapter = \"other\"\n", base + "[e2e\n"} {
		if eff(text) == eff(base) {
			t.Errorf("%q counts as unchanged", text)
		}
	}
}
