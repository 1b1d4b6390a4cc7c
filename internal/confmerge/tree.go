package confmerge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"unicode/utf8"
)

// A document is a tree of *Obj (a table or mapping, keys in file order),
// []any (an array or sequence) and scalars as each format's decoder gives
// them.

// Obj is an object whose keys keep their order.
type Obj struct {
	Keys []string
	M    map[string]any
}

// NewObj returns an empty object.
func NewObj() *Obj { return &Obj{M: map[string]any{}} }

// Get returns the value of key k.
func (o *Obj) Get(k string) (any, bool) {
	v, ok := o.M[k]
	return v, ok
}

// Set sets k, appending it when it is new.
func (o *Obj) Set(k string, v any) {
	if _, ok := o.M[k]; !ok {
		o.Keys = append(o.Keys, k)
	}
	o.M[k] = v
}

// Delete removes k.
func (o *Obj) Delete(k string) {
	if _, ok := o.M[k]; !ok {
		return
	}
	delete(o.M, k)
	for i, x := range o.Keys {
		if x == k {
			o.Keys = append(o.Keys[:i:i], o.Keys[i+1:]...)
			break
		}
	}
}

// clone copies a tree deeply.
func clone(v any) any {
	switch t := v.(type) {
	case *Obj:
		c := &Obj{Keys: append([]string(nil), t.Keys...), M: make(map[string]any, len(t.M))}
		for k, x := range t.M {
			c.M[k] = clone(x)
		}
		return c
	case []any:
		c := make([]any, len(t))
		for i, x := range t {
			c[i] = clone(x)
		}
		return c
	}
	return v
}

// lookup finds the value at p under v.
func lookup(v any, p Path) (any, bool) {
	for _, k := range p {
		o, ok := v.(*Obj)
		if !ok {
			return nil, false
		}
		if v, ok = o.Get(k); !ok {
			return nil, false
		}
	}
	return v, true
}

// Lookup finds the value at p in a document.
func Lookup(doc any, p Path) (any, bool) { return lookup(doc, p) }

// Equal reports whether two trees hold the same data, whatever the order
// of their keys: whether their canonical forms are the same.
func Equal(a, b any) bool {
	if plainTree(a) && plainTree(b) {
		return sameTree(a, b)
	}
	x, errA := appendCanon(nil, a)
	y, errB := appendCanon(nil, b)
	if errA != nil || errB != nil {
		return canon(a) == canon(b)
	}
	return bytes.Equal(x, y)
}

// plainTree reports whether every key in v is UTF-8 and every scalar a
// UTF-8 string, a bool, nil, an integer or a finite float: scalars
// json.Marshal always writes, two of them the same only when they are.
// sameTree compares two such trees as their canonical forms compare,
// without writing the forms: a 100k-element array's is megabytes.
func plainTree(v any) bool {
	switch t := v.(type) {
	case *Obj:
		for k, x := range t.M {
			if !utf8.ValidString(k) || !plainTree(x) {
				return false
			}
		}
		return true
	case []any:
		for _, x := range t {
			if !plainTree(x) {
				return false
			}
		}
		return true
	case string:
		return utf8.ValidString(t)
	case float64:
		return !math.IsNaN(t) && !math.IsInf(t, 0)
	case float32:
		return !math.IsNaN(float64(t)) && !math.IsInf(float64(t), 0)
	case bool, nil, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return true
	}
	return false
}

// sameTree is canon(a) == canon(b) for two plain trees.
func sameTree(a, b any) bool {
	switch x := a.(type) {
	case *Obj:
		y, ok := b.(*Obj)
		if !ok || len(x.M) != len(y.M) {
			return false
		}
		for k, xv := range x.M {
			yv, ok := y.M[k]
			if !ok || !sameTree(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameTree(x[i], y[i]) {
				return false
			}
		}
		return true
	case string:
		y, ok := b.(string)
		return ok && x == y
	}
	switch b.(type) {
	case *Obj, []any, string:
		return false
	}
	// A number's form is its JSON, which an int and a float can share.
	var bufA, bufB [64]byte
	fa, _ := appendCanon(bufA[:0], a)
	fb, _ := appendCanon(bufB[:0], b)
	return bytes.Equal(fa, fb)
}

// canon is a tree as JSON with sorted keys, each scalar tagged by its Go
// type so that the string "1" and the number 1 differ.
func canon(v any) string {
	var buf [128]byte // an element's form, mostly: no allocation but the string
	b, err := appendCanon(buf[:0], v)
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}
	return string(b)
}

// appendCanon writes what json.Marshal(plain(v, true)) writes, byte for
// byte, without the copy of the tree and the reflection per scalar that
// made canon most of a large merge's time.
func appendCanon(b []byte, v any) ([]byte, error) {
	var err error
	switch t := v.(type) {
	case *Obj:
		keys := make([]string, 0, len(t.M))
		for k := range t.M {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendJSONString(b, k); err != nil {
				return nil, err
			}
			b = append(b, ':')
			if b, err = appendCanon(b, t.M[k]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case []any:
		b = append(b, '[')
		for i, x := range t {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendCanon(b, x); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case string:
		b = append(b, `["string",`...)
		if b, err = appendJSONString(b, t); err != nil {
			return nil, err
		}
		return append(b, ']'), nil
	case bool:
		return append(append(b, `["bool",`...), strconv.FormatBool(t)+"]"...), nil
	case nil:
		return append(b, `["\u003cnil\u003e",null]`...), nil
	case int:
		return append(strconv.AppendInt(append(b, `["float64",`...), int64(t), 10), ']'), nil
	case int64:
		return append(strconv.AppendInt(append(b, `["float64",`...), t, 10), ']'), nil
	}
	j, err := json.Marshal([2]any{kindTag(v), v})
	return append(b, j...), err
}

// appendJSONString quotes s as json.Marshal does: it escapes <, > and &,
// and what is not printable ASCII goes to json.Marshal itself.
func appendJSONString(b []byte, s string) ([]byte, error) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			j, err := json.Marshal(s)
			return append(b, j...), err
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"'), nil
}

// plain turns a tree into maps and slices encoding/json writes with sorted
// keys; tagged wraps each scalar with its type.
func plain(v any, tagged bool) any {
	switch t := v.(type) {
	case *Obj:
		m := make(map[string]any, len(t.M))
		for k, x := range t.M {
			m[k] = plain(x, tagged)
		}
		return m
	case []any:
		s := make([]any, len(t))
		for i, x := range t {
			s[i] = plain(x, tagged)
		}
		return s
	}
	if tagged {
		return [2]any{kindTag(v), v}
	}
	return v
}

// kindTag is fmt's %T of scalarKind(v), without fmt for the kinds config
// files hold: canon tags every scalar of a document, and formatting the
// tag was a quarter of a large merge.
func kindTag(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "bool"
	case nil:
		return "<nil>"
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64:
		return "float64"
	}
	return fmt.Sprintf("%T", scalarKind(v))
}

// scalarKind folds the number types decoders give into one, so that a
// TOML int64, a YAML int and a float that a writer prints as 8 compare by
// value.
func scalarKind(v any) any {
	switch v.(type) {
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64:
		return float64(0)
	}
	return v
}

// Keys lists every key path that holds a scalar, an array or an empty
// object, sorted: what a document contains, leaf by leaf.
func Keys(doc any) []string {
	var out []string
	var walk func(Path, any)
	walk = func(p Path, v any) {
		if o, ok := v.(*Obj); ok && len(o.Keys) > 0 {
			for _, k := range o.Keys {
				walk(p.child(k), o.M[k])
			}
			return
		}
		if len(p) > 0 {
			out = append(out, p.String())
		}
	}
	walk(nil, doc)
	sort.Strings(out)
	return out
}
