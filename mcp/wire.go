package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Bounds of one inbound message. A client's request is a tool call: a
// few KiB; a plan file written through a tool is the largest, well under
// the size. Deeper nesting than maxDepth is no request of ours.
const (
	maxInbound = 4 << 20
	maxDepth   = 64
)

// lineTransport is newline-delimited JSON-RPC over a reader and a writer,
// as the stdio transport, that never dies of its input: a line that is
// not JSON gets -32700, one that is JSON but no request (a batch, no
// method, an object as id, too large, too deep) gets -32600, and the
// server reads on. Memory stays bounded: a line past maxInbound is
// skipped as it streams in, never held whole.
type lineTransport struct {
	in  io.ReadCloser
	out io.Writer
}

func (t *lineTransport) Connect(context.Context) (sdk.Connection, error) {
	c := &lineConn{in: t.in, out: t.out, lines: make(chan lineRead), closed: make(chan struct{})}
	go c.readLoop()
	return c, nil
}

type lineRead struct {
	line    []byte
	tooLong bool
	err     error
}

type lineConn struct {
	in        io.ReadCloser
	out       io.Writer
	mu        sync.Mutex // one write at a time
	lines     chan lineRead
	closed    chan struct{}
	closeOnce sync.Once
}

// readLoop reads lines and hands them to Read; a line longer than
// maxInbound is read to its end and dropped.
func (c *lineConn) readLoop() {
	r := bufio.NewReaderSize(c.in, 64<<10)
	for {
		var line []byte
		tooLong := false
		var err error
		for {
			var chunk []byte
			chunk, err = r.ReadSlice('\n')
			if !tooLong {
				if len(line)+len(chunk) > maxInbound {
					tooLong, line = true, nil
				} else {
					line = append(line, chunk...)
				}
			}
			if err != bufio.ErrBufferFull {
				break
			}
		}
		if len(line) > 0 || tooLong {
			select {
			case c.lines <- lineRead{line: line, tooLong: tooLong}:
			case <-c.closed:
				return
			}
		}
		if err != nil {
			select {
			case c.lines <- lineRead{err: err}:
			case <-c.closed:
			}
			return
		}
	}
}

// Read returns the next request or response; what is neither is answered
// with its JSON-RPC error here and skipped.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		var l lineRead
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case l = <-c.lines:
		}
		if l.err != nil {
			return nil, l.err
		}
		msg, code, why := decodeLine(l)
		if msg != nil {
			return msg, nil
		}
		if code != 0 {
			if err := c.answerError(ctx, code, why); err != nil {
				return nil, err
			}
		}
	}
}

// decodeLine is the message a line holds, or the error code and the
// reason to answer with (0: a blank line, nothing to answer).
func decodeLine(l lineRead) (jsonrpc.Message, int64, string) {
	if l.tooLong {
		return nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message larger than %d MiB", maxInbound>>20)
	}
	text := bytes.TrimSpace(l.line)
	switch {
	case len(text) == 0:
		return nil, 0, ""
	case !json.Valid(text):
		return nil, jsonrpc.CodeParseError, "parse error: the line is not JSON"
	case text[0] == '[':
		return nil, jsonrpc.CodeInvalidRequest, "batches are not supported: send one request a line"
	case text[0] != '{':
		return nil, jsonrpc.CodeInvalidRequest, "a request is a JSON object"
	case depth(text) > maxDepth:
		return nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("nested deeper than %d levels", maxDepth)
	}
	msg, err := jsonrpc.DecodeMessage(text)
	if err != nil {
		return nil, jsonrpc.CodeInvalidRequest, "invalid request: " + err.Error()
	}
	return msg, 0, ""
}

// answerError writes an error response with a null id: the request's id,
// if it had one, could not be trusted.
func (c *lineConn) answerError(ctx context.Context, code int64, why string) error {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": why}})
	return c.writeLine(b)
}

func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	return c.writeLine(b)
}

func (c *lineConn) writeLine(b []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.closed:
		return errors.New("connection closed")
	default:
	}
	_, err := c.out.Write(append(b, '\n'))
	return err
}

func (c *lineConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		c.in.Close()
	})
	return nil
}

func (c *lineConn) SessionID() string { return "" }

// depth is the deepest nesting of arrays and objects in valid JSON text.
func depth(text []byte) int {
	d, most, inString, escaped := 0, 0, false, false
	for _, ch := range text {
		switch {
		case escaped:
			escaped = false
		case inString && ch == '\\':
			escaped = true
		case ch == '"':
			inString = !inString
		case inString:
		case ch == '[' || ch == '{':
			d++
			most = max(most, d)
		case ch == ']' || ch == '}':
			d--
		}
	}
	return most
}
