package web

import (
	"bytes"
	"os"
)

// Export writes pg as one self-contained file: the style inline, no
// script, and a policy that forbids every fetch, so it opens offline
// and shows the same evidence as the live page at the time it was built.
func Export(path string, pg *Page) error {
	var b bytes.Buffer
	if err := Render(&b, pg, false, ""); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}
