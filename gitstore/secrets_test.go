package gitstore

import (
	"encoding/base64"
	"os/exec"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/secrets"
)

// Every kind of record, not only user kinds, and every part of it is
// checked; a refused batch writes no object at all.
func TestAppendRefusesSecretsAnywhereInARecord(t *testing.T) {
	const key = "Vb7Nm2Qw9Er4Ty6Ui1Op3As8Df5Gh0Jk"
	t.Setenv("PROVIDER_CRED", key)
	secrets.Configure(func() secrets.Policy { return secrets.Policy{SecretEnv: []string{"PROVIDER_CRED"}} })
	t.Cleanup(func() { secrets.Configure(nil) })
	l, dir := newLedger(t)
	objects := func() string {
		out, err := exec.Command("git", "-C", dir, "count-objects", "-v").Output()
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	before := objects()
	b64 := base64.RawURLEncoding.EncodeToString([]byte("auth=" + key))
	for _, c := range []struct {
		d    Draft
		want string
	}{
		{Draft{Kind: "wp_verified", ID: "v1", Data: []byte(`{"gate":{"log":"` + key + `"}}`)}, "record v1: data $.gate.log holds the value of $PROVIDER_CRED"},
		{Draft{Kind: "lesson_added", ID: "l1", Goal: "g-" + key}, "record l1: goal holds the value of $PROVIDER_CRED"},
		{Draft{Kind: "note", ID: "n1", Data: []byte(`{"` + b64 + `":1}`)}, "record n1: data $ key holds the value of $PROVIDER_CRED (base64"},
		{Draft{Kind: "note", ID: "n2", Attachments: []AttachmentInput{{Name: "report.md", Content: []byte("ok\n" + key)}}}, `record n2: attachment "report.md" holds the value of $PROVIDER_CRED`},
	} {
		// A secret is refused on either path, user kinds or feature kinds.
		appendBatch, fine := l.Append, Draft{Kind: "fine_kind", ID: "fine"}
		if IsUserKind(c.d.Kind) {
			appendBatch, fine = l.AppendUser, note("fine", `{}`)
		}
		_, err := appendBatch([]Draft{fine, c.d})
		if fault.KindOf(err) != fault.Refused || !strings.Contains(err.Error(), "event 2 of the batch: "+c.want) || strings.Contains(err.Error(), key) {
			t.Errorf("%s: %v", c.d.ID, err)
		}
	}
	if after := objects(); after != before {
		t.Fatalf("refused appends wrote objects:\n%s\nthen\n%s", before, after)
	}
}
