package sessions

import (
	"io"
	"os"
	"syscall"

	"github.com/agentproto/agentproto/internal/fault"
)

// MaxPrompt bounds a prompt read from a file: it travels in one request
// (MaxRequest), JSON-escaped.
const MaxPrompt = 4 << 20

// ReadPromptFile reads a prompt from a regular file of at most MaxPrompt
// bytes. A device (/dev/zero) or a FIFO would grow without bound or block
// for ever; they are refused before a byte is read.
func ReadPromptFile(path string) (string, error) {
	// O_NONBLOCK: opening a FIFO with no writer must not hang.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", fault.Invalidf("reading the prompt: %v", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", fault.Invalidf("reading the prompt: %v", err)
	}
	if !fi.Mode().IsRegular() {
		return "", fault.Invalidf("the prompt file %s is not a regular file (%s)", path, fi.Mode().Type())
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxPrompt+1))
	if err != nil {
		return "", fault.Invalidf("reading the prompt: %v", err)
	}
	if len(b) > MaxPrompt {
		return "", fault.Invalidf("the prompt file %s is larger than %d MiB", path, MaxPrompt>>20)
	}
	return string(b), nil
}

// checkRequestSize refuses before sending what the daemon would refuse
// after reading it.
func checkRequestSize(b []byte) error {
	if len(b) > MaxRequest {
		return fault.Invalidf("the request is %.1f MiB, more than the daemon takes (%d MiB); a prompt that large belongs in a file the agent reads", float64(len(b))/(1<<20), MaxRequest>>20)
	}
	return nil
}
