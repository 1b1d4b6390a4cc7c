package gitstore

import (
	"encoding/json"
	"fmt"
)

// Handler folds the events of one kind into a state of type S.
type Handler[S any] struct {
	kind  string
	apply func(s S, e *Event) error
}

// On returns the handler that decodes each event of kind k as a T and
// hands it to fn with its envelope (for the time, id or writer).
func On[S, T any](k Kind[T], fn func(s S, e *Event, data T)) Handler[S] {
	return Handler[S]{kind: k.name, apply: func(s S, e *Event) error {
		var v T
		if err := json.Unmarshal(e.Data, &v); err != nil {
			return err
		}
		fn(s, e, v)
		return nil
	}}
}

// Fold replays every event of the handlers' kinds into s, oldest first:
// the one projection loop every feature shares. Only those kinds are read,
// through the kind index. An event whose data does not decode as its
// kind's type is skipped and named in the warnings returned, after those
// the read met.
func Fold[S any](st Store, s S, hs ...Handler[S]) (Warnings, error) {
	return FoldPrefix(st, "", s, hs...)
}

// FoldPrefix is Fold over the events whose id starts with prefix (see
// Query.IDPrefix): a feature whose ids name their subject (a plan's
// "pipeline/NAME/") decodes and checks that subject's events alone; the
// others of its kinds cost a look at their index keys.
func FoldPrefix[S any](st Store, prefix string, s S, hs ...Handler[S]) (Warnings, error) {
	byKind := map[string][]func(S, *Event) error{}
	var kinds []string
	for _, h := range hs {
		if byKind[h.kind] == nil {
			kinds = append(kinds, h.kind)
		}
		byKind[h.kind] = append(byKind[h.kind], h.apply)
	}
	var warn Warnings
	if len(kinds) == 0 {
		return nil, nil
	}
	var skipped Warnings
	for e, err := range st.Events(Query{Kinds: kinds, IDPrefix: prefix, Reverse: true, Warnings: &warn}) {
		if err != nil {
			return append(warn, skipped...), err
		}
		for _, apply := range byKind[e.Kind] {
			if err := apply(s, e); err != nil {
				skipped.add(fmt.Sprintf("record %s (%s) was skipped: its data does not decode: %v", e.ID, e.Kind, err))
				break
			}
		}
	}
	return append(warn, skipped...), nil
}
