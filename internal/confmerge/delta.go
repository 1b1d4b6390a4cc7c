package confmerge

import (
	"fmt"
	"unicode/utf8"
)

// OpKind is what a change does at a key path.
type OpKind string

// The changes a delta is made of.
const (
	// Set gives the key a value; an object value is merged into an
	// object already there.
	Set OpKind = "set"
	// Remove deletes the key.
	Remove OpKind = "remove"
	// Append adds elements to the array at the key (made when absent),
	// each one unless the array holds it already.
	Append OpKind = "append"
)

// Op is one change at one key path.
type Op struct {
	Path  Path   `json:"-"`
	Key   string `json:"key"`
	Kind  OpKind `json:"op"`
	Value any    `json:"-"`
}

// Delta is the changes that turn one version of a document into another.
type Delta []Op

func op(p Path, kind OpKind, v any) Op {
	return Op{Path: p, Key: p.String(), Kind: kind, Value: v}
}

// Diff is what changed from base to next, key path by key path: keys
// added or changed are set (an array that only grew is appended to),
// keys gone are removed. A nil base is an empty document.
func Diff(base, next any) Delta {
	var d Delta
	diff(&d, nil, base, base != nil, next)
	return d
}

func diff(d *Delta, p Path, b any, had bool, n any) {
	switch nv := n.(type) {
	case *Obj:
		bo, ok := b.(*Obj)
		if !ok {
			if had && len(p) > 0 {
				*d = append(*d, op(p, Set, clone(n)))
				return
			}
			bo = NewObj()
		}
		if len(nv.Keys) == 0 && !had && len(p) > 0 {
			*d = append(*d, op(p, Set, NewObj()))
			return
		}
		for _, k := range nv.Keys {
			bv, ok := bo.Get(k)
			diff(d, p.child(k), bv, ok, nv.M[k])
		}
		for _, k := range bo.Keys {
			if _, ok := nv.Get(k); !ok {
				*d = append(*d, op(p.child(k), Remove, nil))
			}
		}
	case []any:
		ba, isArr := b.([]any)
		if !had || isArr && len(ba) < len(nv) && Equal(ba, nv[:len(ba)]) {
			*d = append(*d, op(p, Append, clone(nv[len(ba):])))
		} else if !Equal(b, n) {
			*d = append(*d, op(p, Set, clone(n)))
		}
	default:
		if !had || !Equal(b, n) {
			*d = append(*d, op(p, Set, n))
		}
	}
}

// Apply makes the changes of d on a copy of doc. It fails when a change
// goes through a key that is not an object, or appends to a non-array.
func Apply(doc any, d Delta) (any, error) {
	out := clone(doc)
	if out == nil {
		out = NewObj()
	}
	root, ok := out.(*Obj)
	if !ok && len(d) > 0 {
		return nil, fmt.Errorf("the document is not an object at its root")
	}
	for _, o := range d {
		if err := applyOp(root, o); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func applyOp(root *Obj, o Op) error {
	if len(o.Path) == 0 {
		return fmt.Errorf("a change names no key")
	}
	parent := root
	for i, k := range o.Path[:len(o.Path)-1] {
		v, ok := parent.Get(k)
		if !ok {
			if o.Kind == Remove {
				return nil
			}
			v = NewObj()
			parent.Set(k, v)
		}
		next, ok := v.(*Obj)
		if !ok && o.Kind == Remove {
			return nil
		}
		if !ok {
			return fmt.Errorf("%s is not an object, so %s cannot be changed beneath it", o.Path[:i+1], o.Path)
		}
		parent = next
	}
	last := o.Path[len(o.Path)-1]
	cur, had := parent.Get(last)
	switch o.Kind {
	case Remove:
		parent.Delete(last)
	case Set:
		if src, ok := o.Value.(*Obj); ok {
			if dst, ok := cur.(*Obj); ok {
				for _, k := range src.Keys {
					if err := applyOp(dst, op(Path{k}, Set, src.M[k])); err != nil {
						return err
					}
				}
				return nil
			}
		}
		parent.Set(last, clone(o.Value))
	case Append:
		arr, ok := cur.([]any)
		if had && !ok {
			return fmt.Errorf("%s is not an array, so nothing can be appended to it", o.Path)
		}
		add, _ := o.Value.([]any)
		arr = appendNew(arr, add)
		if arr == nil {
			arr = []any{}
		}
		parent.Set(last, arr)
	default:
		return fmt.Errorf("unknown change %q at %s", o.Kind, o.Path)
	}
	return nil
}

// canonSet holds the canonical forms of arr's elements: membership by
// Equal at one canonical form an element, where comparing pairwise cost
// one per pair (a 5,000-element array took 10 s to merge that way).
func canonSet(arr []any) map[string]bool {
	set := make(map[string]bool, len(arr))
	for _, x := range arr {
		set[keyOf(x)] = true
	}
	return set
}

// keyOf stands for v's canonical form in a canonSet. A string in UTF-8,
// which most elements are, stands for itself: its canonical form says no
// more, and making that form cost two allocations an element. Anything
// else is its form after a byte no UTF-8 string holds.
func keyOf(v any) string {
	if s, ok := v.(string); ok && utf8.ValidString(s) {
		return s
	}
	// A string not in UTF-8 goes here too: canon writes each stray byte
	// as \ufffd, so two such strings can be Equal.
	return "\xff" + canon(v)
}

// appendNew appends to arr (a copy of) each element of add it does not
// hold yet, once.
func appendNew(arr, add []any) []any {
	have := canonSet(arr)
	for _, e := range add {
		if k := keyOf(e); !have[k] {
			have[k] = true
			arr = append(arr, clone(e))
		}
	}
	return arr
}

// Leaves is a snippet as the changes it asks for: every scalar it holds is
// set, every array's elements appended, an empty object made, and objects
// merged key by key, so that a snippet only adds to what is there.
func Leaves(snippet any) Delta {
	var d Delta
	var walk func(Path, any)
	walk = func(p Path, v any) {
		switch t := v.(type) {
		case *Obj:
			if len(t.Keys) == 0 && len(p) > 0 {
				d = append(d, op(p, Set, NewObj()))
			}
			for _, k := range t.Keys {
				walk(p.child(k), t.M[k])
			}
		case []any:
			d = append(d, op(p, Append, clone(t)))
		default:
			d = append(d, op(p, Set, t))
		}
	}
	walk(nil, snippet)
	return d
}
