package app

import "testing"

func TestLastLines(t *testing.T) {
	b := []byte("a\nb\nc\n")
	for n, want := range map[int]string{0: "a\nb\nc\n", 1: "c\n", 2: "b\nc\n", 9: "a\nb\nc\n"} {
		if got := string(LastLines(b, n)); got != want {
			t.Errorf("lastLines(%d) = %q, want %q", n, got, want)
		}
	}
	if got := string(LastLines([]byte("a\nb"), 1)); got != "b" {
		t.Errorf("an unfinished last line: %q", got)
	}
}

func TestOutputLinesWaitsForTheNewline(t *testing.T) {
	var got []OutputLine
	s := &OutputLines{Session: "s", Emit: func(l OutputLine) error { got = append(got, l); return nil }}
	s.Add([]byte("a\r\nb"))
	s.Add([]byte("c\nd"))
	if len(got) != 2 || got[0].Line != "a" || got[1].Line != "bc" {
		t.Fatalf("before the end: %+v", got)
	}
	s.Flush()
	if len(got) != 3 || got[2].Line != "d" {
		t.Fatalf("after Flush: %+v", got)
	}
}

func TestCutLineKeepsTheStart(t *testing.T) {
	long := make([]byte, maxLineBytes+10)
	for i := range long {
		long[i] = 'x'
	}
	if got := cutLine(long); len(got) != maxLineBytes+len(" […cut 10 bytes]") {
		t.Fatalf("cut line: %d bytes, ends %q", len(got), got[maxLineBytes:])
	}
	if got := cutLine([]byte("short")); got != "short" {
		t.Fatalf("short line: %q", got)
	}
}
