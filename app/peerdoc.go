package app

import (
	"context"
	"os"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/peers"
)

// ReadPeerInput reads a peer protocol document from the file given for
// flag --what, refused past the size a document may have.
func ReadPeerInput(path, what string) ([]byte, error) {
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

// RecordPeerDoc decodes a peer protocol document strictly (what names it
// in a refusal) and hands it to act, which validates it and, when told
// to, records it: written says it was written now.
func RecordPeerDoc[T, Out any](ctx context.Context, e *Env, raw []byte, what string,
	act func(*peers.Service, *T) (Out, bool, error)) (out Out, written bool, err error) {
	svc, err := e.Peers(ctx)
	if err != nil {
		return out, false, err
	}
	var doc T
	if err := peers.DecodeStrict(raw, what, &doc); err != nil {
		return out, false, err
	}
	return act(svc, &doc)
}
