package peercmd

import (
	"context"
	"fmt"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
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

// validateThenRecord reads a JSON input with the hygiene checks, hands it
// to act, prints the normalized result under schema and says whether
// anything was recorded. The input's path is never recorded.
func validateThenRecord[T any](o *recordInput, flag, what, schema string, act func(*peers.Service, *T) (any, bool, error)) error {
	b, err := app.ReadPeerInput(o.File, flag)
	if err != nil {
		return err
	}
	out, written, err := app.RecordPeerDoc(context.Background(), o.App, b, what, act)
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
