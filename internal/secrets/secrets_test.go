package secrets

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/fault"
)

const (
	ghToken  = "ghs_0123456789abcdefABCDEFghijklmnopqrst"
	modelKey = "mk-9f8e7d6c5b4a3928-17"
)

func testSet() *Set {
	return New([]string{
		"GH_TOKEN=" + ghToken,
		"MY_MODEL_CREDENTIAL=" + modelKey,  // a key_env, named in the policy
		"DEPLOY_TOKEN=x",                   // too short to be looked for
		"SSH_KEY=/home/me/.ssh/id_ed25519", // a path, not a secret
		"PATH=/usr/bin",
	}, Policy{SecretEnv: []string{"MY_MODEL_CREDENTIAL"}})
}

func TestFindKnownValuesInEveryEncoding(t *testing.T) {
	s := testSet()
	for _, value := range []string{ghToken, modelKey} {
		cases := map[string]string{
			"as is":   "token=" + value + ".",
			"hex":     "x " + hex.EncodeToString([]byte(value)) + " y",
			"HEX":     strings.ToUpper(hex.EncodeToString([]byte(value))),
			"url":     url.QueryEscape("a&" + value + "&b"),
			"json":    string(must(json.Marshal("say \"" + value + "\""))),
			"b64 raw": base64.RawStdEncoding.EncodeToString([]byte(value)),
		}
		// Inside a longer blob, at each alignment, in both alphabets.
		for pre := 0; pre < 3; pre++ {
			blob := strings.Repeat("\xff", pre) + value + "\xfe\xfd"
			cases["b64 std offset "+string(rune('0'+pre))] = base64.StdEncoding.EncodeToString([]byte(blob))
			cases["b64 url offset "+string(rune('0'+pre))] = base64.URLEncoding.EncodeToString([]byte(blob))
		}
		for name, text := range cases {
			named := false
			for _, f := range s.Find(text) {
				named = named || strings.HasPrefix(f.What, "the value of $")
				if strings.Contains(f.String(), value) {
					t.Errorf("%s: finding %q shows the value", name, f)
				}
			}
			if !named {
				t.Errorf("%s: the value is not found in %q", name, text)
			}
		}
	}
}

func TestFindIgnoresShortValuesAndPaths(t *testing.T) {
	s := testSet()
	for _, text := range []string{"x", "exit code 1, x=2", "read /home/me/.ssh/id_ed25519", "plain words"} {
		if f := s.Find(text); len(f) > 0 {
			t.Errorf("%q: %v", text, f)
		}
	}
	if got := s.Names(); strings.Join(got, ",") != "GH_TOKEN,MY_MODEL_CREDENTIAL" {
		t.Errorf("Names = %v", got)
	}
}

func TestFindShapesAsWrittenAndEncoded(t *testing.T) {
	s := New(nil, Policy{})
	unknown := "ghp_" + strings.Repeat("Zz9", 12)
	aws := "AKIA" + "ABCDEFGHIJKLMNOP"
	for text, want := range map[string]string{
		unknown: "a GitHub token",
		base64.StdEncoding.EncodeToString([]byte("machine x password " + unknown)): "a GitHub token (base64-encoded)",
		base64.RawURLEncoding.EncodeToString([]byte(aws + "\n")):                   "an AWS access key (base64-encoded)",
		"id=" + hex.EncodeToString([]byte(aws)):                                    "an AWS access key (hex-encoded)",
		"Authorization: Bearer abcdefghijklmnop.qrstuv":                            "a bearer token",
	} {
		f := s.Find(text)
		if len(f) == 0 || f[0].String() != want {
			t.Errorf("%q: %v, want %s", text, f, want)
		}
	}
}

func TestScrubLeavesNothingFindable(t *testing.T) {
	s := testSet()
	text := "GH_TOKEN=" + ghToken + "\nOPENAI=sk-proj-" + strings.Repeat("a", 30) + "\nb64 " +
		base64.StdEncoding.EncodeToString([]byte("::"+modelKey)) + "\nok\n"
	got := s.Scrub(text)
	if len(s.Find(got)) > 0 || strings.Contains(got, ghToken) {
		t.Fatalf("scrubbed text still holds a secret:\n%s", got)
	}
	for _, want := range []string{"GH_TOKEN=[redacted:GH_TOKEN]\n", "OPENAI=[redacted:api-key]\n", "[redacted:MY_MODEL_CREDENTIAL]", "\nok\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("scrubbed text lacks %q:\n%s", want, got)
		}
	}
	if clean := "nothing here\n"; s.Scrub(clean) != clean {
		t.Error("a clean text was changed")
	}
}

func TestRefuseNamesThePathNotTheValue(t *testing.T) {
	s := testSet()
	// \u0067 is "g": the JSON hides the token from a byte search.
	doc := []byte(`{"a":{"list":["ok","\u0067` + ghToken[1:] + `"]}}`)
	err := s.RefuseJSON("data", doc)
	if err == nil || fault.KindOf(err) != fault.Refused {
		t.Fatalf("err = %v", err)
	}
	if msg := err.Error(); msg != "data $.a.list[1] holds the value of $GH_TOKEN; secrets never go into the ledger" {
		t.Fatal(msg)
	}
	err = s.Refuse("the lesson", "use "+base64.StdEncoding.EncodeToString([]byte(modelKey)))
	if err == nil || !strings.Contains(err.Error(), "the value of $MY_MODEL_CREDENTIAL (base64-encoded)") {
		t.Fatalf("err = %v", err)
	}
	if err := s.RefuseJSON("data", []byte(`{"text":"hello"}`)); err != nil {
		t.Fatal(err)
	}
}

func TestChildEnvPassesWhatBuildsNeedNotOurTokens(t *testing.T) {
	environ := []string{
		"PATH=/usr/bin", "HOME=/home/me", "LC_ALL=C", "GOFLAGS=-mod=mod", "GIT_AUTHOR_NAME=Me",
		"GIT_DIR=/elsewhere/.git",
		"GH_TOKEN=" + ghToken, "OPENAI_API_KEY=sk-" + strings.Repeat("b", 30), "MY_MODEL_CREDENTIAL=" + modelKey,
		"NPM_TOKEN=npm_0123456789abcdef", "DB_PASSWORD=hunter2hunter2",
		"GIT_CONFIG_VALUE_0=Authorization: token " + ghToken,
		"AWS_PROFILE=dev", "JAVA_HOME=/opt/java", "CUSTOM_TOOL_DIR=/opt/tool",
	}
	s := New(environ, Policy{SecretEnv: []string{"MY_MODEL_CREDENTIAL"}, PassEnv: []string{"NPM_TOKEN", "CUSTOM_*", "GH_TOKEN"}})
	got := strings.Join(s.ChildEnv(environ), "\n")
	want := strings.Join([]string{"PATH=/usr/bin", "HOME=/home/me", "LC_ALL=C", "GOFLAGS=-mod=mod", "GIT_AUTHOR_NAME=Me",
		"NPM_TOKEN=npm_0123456789abcdef", "JAVA_HOME=/opt/java", "CUSTOM_TOOL_DIR=/opt/tool"}, "\n")
	if got != want {
		t.Fatalf("ChildEnv:\n%s\nwant:\n%s", got, want)
	}
	// A passed secret is still scrubbed from what the command prints.
	if out := s.Scrub("npm_0123456789abcdef"); out != "[redacted:NPM_TOKEN]" {
		t.Fatal(out)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func TestScrubJSONKeepsTheRecordValid(t *testing.T) {
	s := testSet()
	doc := []byte(`{"wp":"WP1","report":{"notes":["pushed with ` + ghToken + `"],"` + modelKey + `":1}}`)
	got := s.ScrubJSON(doc)
	var v map[string]any
	if err := json.Unmarshal(got, &v); err != nil {
		t.Fatalf("%s: %v", got, err)
	}
	if s.RefuseJSON("data", got) != nil || !strings.Contains(string(got), `"pushed with [redacted:GH_TOKEN]"`) || v["wp"] != "WP1" {
		t.Fatalf("ScrubJSON = %s", got)
	}
	if clean := []byte(`{"b":1,"a":"x"}`); string(s.ScrubJSON(clean)) != string(clean) {
		t.Fatal("a clean record was rewritten")
	}
}

// base64(1) wraps its output at 76 columns: a value straddling a line
// break is found and scrubbed all the same.
func TestFindBase64WrappedOverLines(t *testing.T) {
	s := testSet()
	for pre := 40; pre < 80; pre++ {
		name, value := "GH_TOKEN", ghToken
		if pre%2 == 1 {
			name, value = "MY_MODEL_CREDENTIAL", modelKey
		}
		enc := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("-", pre) + "oauth_token: " + value + "\n"))
		var wrapped strings.Builder
		for len(enc) > 76 {
			wrapped.WriteString(enc[:76] + "\n")
			enc = enc[76:]
		}
		wrapped.WriteString(enc + "\n")
		text := "$ base64 hosts.yml\n" + wrapped.String() + "-- done\n"
		found := false
		for _, f := range s.Find(text) {
			found = found || f.Name == name
		}
		if !found {
			t.Fatalf("prefix %d: not found in\n%s", pre, text)
		}
		out := s.Scrub(text)
		if len(s.Find(out)) > 0 || !strings.HasPrefix(out, "$ base64 hosts.yml\n") || !strings.HasSuffix(out, "\n-- done\n") {
			t.Fatalf("prefix %d: Scrub =\n%s", pre, out)
		}
	}
}

func TestLooksSecret(t *testing.T) {
	for name, want := range map[string]bool{
		"NPM_TOKEN": true, "AWS_SECRET_ACCESS_KEY": true, "DATADOG_APIKEY": true, "DB_PASSWORD": true,
		"MYSQL_PASSWORD_FILE": true, "GITLAB_PAT": true, "SERVICE_CREDENTIAL": true, "TOKEN": true,
		"PATH": false, "KEYBOARD": false, "GOOGLE_APPLICATION_CREDENTIALS": false, "TOKENIZER_DIR": false, "SSH_AUTH_SOCK": false,
	} {
		if LooksSecret(name) != want {
			t.Errorf("LooksSecret(%s) = %v", name, !want)
		}
	}
}

// A secret the cut falls into is scrubbed whole, not left as a tail.
func TestScrubTailCutsNoSecretInTwo(t *testing.T) {
	s := testSet()
	for cut := 1; cut < len(ghToken); cut++ {
		b := []byte(strings.Repeat("x", 5000) + ghToken + strings.Repeat("y", 100))
		max := 100 + len(ghToken) - cut
		got, wasCut := s.ScrubTail(b, max)
		if !wasCut || len(got) != max || strings.Contains(string(got), ghToken[cut:]) {
			t.Fatalf("cut %d: %q", cut, got)
		}
	}
	if got, wasCut := s.ScrubTail([]byte("short "+ghToken), 1000); wasCut || string(got) != "short [redacted:GH_TOKEN]" {
		t.Fatalf("%q %v", got, wasCut)
	}
}

// Forms of a known value the scrubber missed: reversed, without its
// prefix, split in two fields, with invisible characters inside.
func TestScrubTheValueHiddenInOtherForms(t *testing.T) {
	const tok = "ghp_0123456789abcdefghijABCDEFGHIJklmnop"
	s := New([]string{"GH_TOKEN=" + tok}, Policy{})
	rev := []rune(tok)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	for _, text := range []string{
		"out: " + string(rev),
		"body " + tok[4:] + " end",
		`{"a":"` + tok[:20] + `","b":"` + tok[20:] + `"}`,
		"x " + tok[:10] + "\u200b" + tok[10:30] + "\u2060" + tok[30:] + " y",
	} {
		got := s.Scrub(text)
		if !strings.Contains(got, "[redacted:GH_TOKEN]") {
			t.Errorf("%q was not scrubbed: %q", text, got)
		}
		for _, part := range []string{tok[4:20], tok[20:], string(rev[:16])} {
			if strings.Contains(got, part) {
				t.Errorf("%q kept %q: %q", text, part, got)
			}
		}
	}
	if got := s.Scrub("an ordinary gate log: ok 12 tests"); got != "an ordinary gate log: ok 12 tests" {
		t.Errorf("a clean text changed: %q", got)
	}
}

// A byte that is not UTF-8 next to an invisible character: the value
// looked for around invisible characters is placed within the text, and a
// value that is only U+FFFD where the text has a bad byte is not there.
func TestFindInvisibleKeepsBadBytesAsWritten(t *testing.T) {
	secret := "abcdefghijkl\uFFFD"
	s := New([]string{"APP_SECRET=" + secret}, Policy{})
	for _, text := range []string{"x\u200babcdefghijkl\xff", "abc\u200bdefghijkl\xff\xfe", "\xffabc\u200bdefghijkl\uFFFD"} {
		for _, f := range s.Find(text) {
			if f.Start < 0 || f.End > len(text) || f.Start >= f.End {
				t.Fatalf("Find(%q): finding %v out of [0,%d)", text, f, len(text))
			}
		}
		out := s.Scrub(text)
		if strings.Contains(strings.ReplaceAll(out, "\u200b", ""), secret) {
			t.Fatalf("Scrub(%q) = %q, the value is still there", text, out)
		}
	}
	if got := s.Find("x\u200babcdefghijkl\xff"); len(got) != 0 {
		t.Fatalf("a bad byte was taken for U+FFFD: %v", got)
	}
	if got := s.Find("\xffabc\u200bdefghijkl\uFFFD"); len(got) != 1 || got[0].Encoding != "with invisible characters" {
		t.Fatalf("the value with an invisible character in it: %v", got)
	}
}
