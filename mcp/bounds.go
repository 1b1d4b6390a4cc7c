package mcp

import (
	"bytes"
	"fmt"
)

// Bounds of session_output: a client reads the end of a turn (the last
// 40 to 60 lines say how it ended), never megabytes of it.
const (
	defaultOutputLines = 60
	maxOutputLines     = 2000
	maxLineBytes       = 4 << 10
)

// cutLine keeps the start of a line past maxLineBytes, and says so.
func cutLine(p []byte) string {
	if len(p) <= maxLineBytes {
		return string(p)
	}
	return fmt.Sprintf("%s […cut %d bytes]", bytes.ToValidUTF8(p[:maxLineBytes], nil), len(p)-maxLineBytes)
}
