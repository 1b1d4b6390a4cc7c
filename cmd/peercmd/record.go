package peercmd

import (
	"context"
	"fmt"
	"os"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/peers"
)

// recordInput is what propose and receipt share: the document's file and
// whether to record it.
type recordInput struct {
	IO  *cmdutil.IOStreams
	App *app.Env

	Goal    string
	Agent   string
	File    string
	Execute bool
	Export  *cmdutil.Exporter
}

// readInput reads a JSON input file, refusing one over the protocol's
// size before reading it.
func readInput(path, what string) ([]byte, error) {
	if path == "" {
		return nil, fault.Invalidf("--%s is required", what)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fault.Invalidf("--%s: %v", what, err)
	}
	if fi.Size() > peers.MaxInput {
		return nil, fault.Invalidf("--%s is %d bytes; the limit is %d", what, fi.Size(), peers.MaxInput)
	}
	return os.ReadFile(path)
}

// validateThenRecord reads a JSON input with the hygiene checks, hands it
// to act, prints the normalized result under schema and says whether
// anything was recorded. The input's path is never recorded.
func validateThenRecord[T any](o *recordInput, flag, what, schema string, act func(*peers.Service, *T) (any, bool, error)) error {
	s, err := o.App.Peers(context.Background())
	if err != nil {
		return err
	}
	b, err := readInput(o.File, flag)
	if err != nil {
		return err
	}
	var doc T
	if err := peers.DecodeStrict(b, what, &doc); err != nil {
		return err
	}
	out, written, err := act(s, &doc)
	if err != nil {
		return err
	}
	if err := writeNamed(o.IO.Out, o.Export, schema, out); err != nil {
		return err
	}
	switch {
	case !o.Execute:
		fmt.Fprintln(o.IO.ErrOut, "(valid; nothing recorded: add --apply)")
	case !written:
		fmt.Fprintln(o.IO.ErrOut, "(already recorded with the same content)")
	}
	return nil
}
