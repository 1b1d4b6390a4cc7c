package gitstore

import (
	"strings"
	"testing"
)

// Every envelope the index takes reads back byte for byte, packed when it
// is canonical and as it is otherwise; a changed byte anywhere in key or
// value reads as damage.
func TestPackedValueRoundTrip(t *testing.T) {
	seal := strings.Repeat("0123456789abcdef", 4)
	head := `{"schema":"agentproto.event/v1","id":"a-1","kind":"note","lamport":42,"writer":"w-1","time":`
	cases := []struct {
		env    string
		packed bool
	}{
		{head + `"2026-01-02T03:04:05.123456789Z","data":{"i":1}}`, true},
		{head + `"2026-01-02T03:04:05Z","goal":"g-1","agent":"bob","seal":"` + seal + `","data":{}}`, true},
		{head + `"2026-01-02T03:04:05Z","seal":"` + strings.ToUpper(seal) + `","data":{}}`, true},
		{head + `"2026-01-02T03:04:05.100Z","data":{}}`, true},        // time kept as text
		{head + `"2026-01-02T03:04:05+02:00","data":{}}`, true},       // time kept as text
		{head + `"2026-01-02T03:04:05Z","seal":"","data":{}}`, false}, // an empty seal is not written
		{head + `"2026-01-02T03:04:05Z", "data":{}}`, false},
		{head + `"2026-01-02T03:04:05Z","data":{"s":"\u00e9"}}`, true},
		{`{"schema":"agentproto.event/v1","id":"a\u002d1","kind":"note","lamport":42,"writer":"w-1","time":"2026-01-02T03:04:05Z","data":{}}`, false},
		{head + `"2026-01-02T03:04:05Z","attachments":[{"name":"f","oid":"` + strings.Repeat("a", 40) + `","size":1,"sha256":"` + seal + `"}],"data":{}}`, false},
	}
	oid := [20]byte{1, 2, 3}
	for _, c := range cases {
		e, err := decodeFast([]byte(c.env))
		if err != nil {
			t.Fatalf("%s: %v", c.env, err)
		}
		key := orderKey(e.Lamport, e.Writer, e.ID)
		v, _ := appendValue(nil, nil, key, &oid, []byte(c.env), e)
		if got := v[valueHead] == formPacked; got != c.packed {
			t.Errorf("%s: packed %v, want %v", c.env, got, c.packed)
		}
		env, gotOID, ok := readValue(nil, key, v)
		if !ok || string(env) != c.env || string(gotOID) != string(oid[:]) {
			t.Errorf("read back %q (ok %v), want %q", env, ok, c.env)
		}
		if c.packed && len(v) >= len(c.env)+valueHead {
			t.Errorf("%s: packed into %d bytes", c.env, len(v))
		}
		for i := range len(key) + len(v) {
			k, w := []byte(string(key)), []byte(string(v))
			if i < len(k) {
				k[i] ^= 0x10
			} else {
				w[i-len(k)] ^= 0x10
			}
			if _, _, ok := readValue(nil, k, w); ok {
				t.Fatalf("%s: byte %d changed and still read", c.env, i)
			}
		}
	}
}

// Order keys sort as (clock, writer, id) do, and split back into them.
func TestOrderKeySortsByClock(t *testing.T) {
	clocks := []uint64{0, 1, 255, 256, 65535, 65536, 1 << 40, 1<<64 - 1}
	for i, a := range clocks {
		ka := orderKey(a, "w-1", "x")
		l, w, id, ok := splitOrderKey(ka)
		if !ok || l != a || string(w) != "w-1" || string(id) != "x" {
			t.Fatalf("%d: split %d %q %q %v", a, l, w, id, ok)
		}
		for _, b := range clocks[i+1:] {
			if kb := orderKey(b, "w-0", "a"); string(ka) >= string(kb) {
				t.Errorf("key of %d does not sort before that of %d", a, b)
			}
		}
	}
}
