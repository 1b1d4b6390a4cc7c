package confmerge

import (
	"encoding/json"
	"strings"
)

// Change is one party's delta to a file, named by who made it.
type Change struct {
	Who   string
	Delta Delta
}

// Collision is two parties changing one key path in ways that do not
// agree: different values, or one removing what the other sets.
type Collision struct {
	Key         string `json:"key"`
	First       string `json:"first"`
	Second      string `json:"second"`
	FirstValue  string `json:"first_value"`
	SecondValue string `json:"second_value"`
	// Rename proposes moving one side's key aside, as WHO:OLD=NEW; empty
	// when neither side adds a key that could move.
	Rename string `json:"rename,omitempty"`
}

// Collisions finds every pair of changes, from different parties, that
// disagree. Changes keep their order: the first party is the one earlier
// in changes, and the rename proposed is the later one's.
func Collisions(changes []Change) []Collision {
	var out []Collision
	for i, a := range changes {
		for _, b := range changes[i+1:] {
			if a.Who == b.Who {
				continue
			}
			for _, x := range a.Delta {
				for _, y := range b.Delta {
					if collide(x, y) {
						out = append(out, collision(a.Who, x, b.Who, y))
					}
				}
			}
		}
	}
	return out
}

func collision(aWho string, a Op, bWho string, b Op) Collision {
	key := a.Path
	if len(b.Path) < len(key) {
		key = b.Path
	}
	c := Collision{Key: key.String(), First: aWho, Second: bWho, FirstValue: show(a), SecondValue: show(b)}
	switch {
	case b.Kind != Remove:
		c.Rename = proposal(bWho, b.Path)
	case a.Kind != Remove:
		c.Rename = proposal(aWho, a.Path)
	}
	return c
}

// proposal moves who's key beside the other: scripts.test becomes
// scripts.test:wp2.
func proposal(who string, p Path) string {
	moved := append(Path{}, p...)
	moved[len(moved)-1] += ":" + strings.ToLower(who)
	return who + ":" + p.String() + "=" + moved.String()
}

func show(o Op) string {
	if o.Kind == Remove {
		return "(removed)"
	}
	b, err := json.Marshal(plain(o.Value, false))
	if err != nil {
		return "?"
	}
	if o.Kind == Append {
		return "+" + string(b)
	}
	return string(b)
}

// collide reports whether a and b cannot both be applied.
func collide(a, b Op) bool {
	if len(b.Path) < len(a.Path) {
		a, b = b, a
	}
	if !b.Path.HasPrefix(a.Path) {
		return false
	}
	if len(a.Path) == len(b.Path) {
		return sameKeyCollides(a, b)
	}
	// a is an ancestor of b: only an object a sets leaves room for b.
	obj, ok := a.Value.(*Obj)
	if a.Kind != Set || !ok {
		return true
	}
	var v any = obj
	for _, k := range b.Path[len(a.Path):] {
		o, ok := v.(*Obj)
		if !ok {
			return true
		}
		if v, ok = o.Get(k); !ok {
			return false
		}
	}
	return sameKeyCollides(op(b.Path, Set, v), b)
}

func sameKeyCollides(a, b Op) bool {
	switch {
	case a.Kind == Remove && b.Kind == Remove, a.Kind == Append && b.Kind == Append:
		return false
	case a.Kind != Set || b.Kind != Set:
		return true
	}
	ao, aok := a.Value.(*Obj)
	bo, bok := b.Value.(*Obj)
	if aok && bok {
		return !agree(ao, bo)
	}
	return !Equal(a.Value, b.Value)
}

// agree reports whether two objects merged into one key give no key two
// values.
func agree(a, b *Obj) bool {
	for _, k := range a.Keys {
		bv, ok := b.Get(k)
		if !ok {
			continue
		}
		ao, aok := a.M[k].(*Obj)
		bo, bok := bv.(*Obj)
		if aok && bok {
			if !agree(ao, bo) {
				return false
			}
		} else if !Equal(a.M[k], bv) {
			return false
		}
	}
	return true
}

// Rename moves d's sets and appends at from, or beneath it, to to. It
// reports whether there was one to move.
func (d Delta) Rename(from, to Path) (Delta, bool) {
	out := make(Delta, len(d))
	moved := false
	for i, o := range d {
		out[i] = o
		if o.Kind != Remove && o.Path.HasPrefix(from) {
			p := append(append(Path{}, to...), o.Path[len(from):]...)
			out[i] = op(p, o.Kind, o.Value)
			moved = true
		}
	}
	return out, moved
}
