package sessions

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// countingReader counts what the frame reader takes from its source.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func TestReadFrame(t *testing.T) {
	cases := []struct {
		in   string
		max  int
		want string
		err  error
	}{
		{"hello\nrest", 5, "hello", nil},
		{"hello", 5, "hello", nil},            // last line without a newline
		{"hello!\n", 5, "", ErrFrameTooLarge}, // one byte over
		{"hello!", 5, "", ErrFrameTooLarge},
		{"", 5, "", io.EOF},
		{"\n", 5, "", nil},
		{strings.Repeat("x", 100) + "\n", 100, strings.Repeat("x", 100), nil},
	}
	for _, c := range cases {
		got, err := readFrame(bufio.NewReaderSize(strings.NewReader(c.in), 16), c.max)
		if !errors.Is(err, c.err) || string(got) != c.want {
			t.Errorf("readFrame(%q, %d) = %q, %v; want %q, %v", c.in, c.max, got, err, c.want, c.err)
		}
	}
}

func TestDecodeRequestRefusesWhatItDoesNotKnow(t *testing.T) {
	for _, in := range []string{`{"op":"ping","extra":1}`, `{"op":"ping"} {"op":"kill"}`, `[1]`, `{"op":`} {
		if _, err := DecodeRequest(bufio.NewReader(strings.NewReader(in+"\n")), MaxRequest); !errors.Is(err, ErrBadRequest) {
			t.Errorf("%s: err = %v", in, err)
		}
	}
	req, err := DecodeRequest(bufio.NewReader(strings.NewReader(`{"op":"wait","ids":["s-0123456789ab"],"timeout":"1m"}`+"\n")), MaxRequest)
	if err != nil || req.Op != "wait" || len(req.IDs) != 1 || req.Timeout != "1m" {
		t.Fatalf("%+v %v", req, err)
	}
}

// FuzzFrame: the socket frame decoder never panics, never returns more
// than its bound, and never takes more from the peer than the bound and
// one buffer, whatever arrives.
func FuzzFrame(f *testing.F) {
	f.Add([]byte(`{"op":"ping"}`+"\n"), uint16(64))
	f.Add([]byte(`{"op":"start","start":{"adapter":"a","path":"/x","dir":"/","prompt":"p","env":["A=b"]}}`), uint16(4096))
	f.Add(bytes.Repeat([]byte("a"), 5000), uint16(100))
	f.Add([]byte("\n\n\n"), uint16(0))
	f.Add([]byte(`{"op":"ping"} trailing`+"\n"), uint16(64))
	const buf = 16
	f.Fuzz(func(t *testing.T, in []byte, max uint16) {
		src := &countingReader{r: bytes.NewReader(in)}
		line, err := readFrame(bufio.NewReaderSize(src, buf), int(max))
		if len(line) > int(max) {
			t.Fatalf("frame of %d bytes over a bound of %d", len(line), max)
		}
		if src.n > int(max)+1+buf {
			t.Fatalf("read %d bytes from the peer for a bound of %d", src.n, max)
		}
		if err == nil {
			want := in
			if i := bytes.IndexByte(in, '\n'); i >= 0 {
				want = in[:i]
			}
			if !bytes.Equal(line, want) {
				t.Fatalf("frame %q, want %q", line, want)
			}
		} else if i := bytes.IndexByte(in, '\n'); (i >= 0 && i <= int(max)) || (i < 0 && len(in) > 0 && len(in) <= int(max)) {
			t.Fatalf("a frame within the bound was refused: %v", err)
		}
		req, err := DecodeRequest(bufio.NewReaderSize(bytes.NewReader(in), buf), int(max))
		if err == nil && req == nil {
			t.Fatal("no request and no error")
		}
	})
}
