package gitstore

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"sync"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/secrets"
)

// Owner is a feature that records the event kinds it declared. A declared
// kind is written only from drafts its Owner made, so a feature keeps its
// Owner unexported: no other package can then record its kinds, and a
// user's raw append (AppendUser) can never forge them.
type Owner struct{ name string }

// declared is one kind in the registry.
type declared struct {
	owner   *Owner
	payload reflect.Type
	scrub   bool
	sealed  bool
}

// registry maps each declared kind to its owner and payload type. Kinds
// are declared from package variables, so it fills before main runs.
var registry = struct {
	sync.RWMutex
	kinds  map[string]declared
	owners map[string]*Owner
	// elsewhere maps kinds declared by a package this program does not
	// link to their owner's name (OwnedElsewhere).
	elsewhere map[string]string
}{kinds: map[string]declared{}, owners: map[string]*Owner{}, elsewhere: map[string]string{}}

// NewOwner returns the owner of a feature's kinds. It panics when name is
// already an owner: two features sharing one would share their kinds.
func NewOwner(name string) *Owner {
	registry.Lock()
	defer registry.Unlock()
	if name == "" || registry.owners[name] != nil {
		panic(fmt.Sprintf("gitstore: owner %q declared twice", name))
	}
	o := &Owner{name: name}
	registry.owners[name] = o
	return o
}

// Name returns the feature the owner stands for.
func (o *Owner) Name() string { return o.name }

// KindOption tunes a declared kind.
type KindOption func(*declared)

// Scrubbed marks a kind whose data and attachments are made of what agents
// and commands printed: a secret in them is replaced by a marker when the
// event is recorded, where a user's own append is refused.
func Scrubbed() KindOption { return func(d *declared) { d.scrub = true } }

// Sealed marks a kind whose events a reader trusts only when this clone
// wrote them (CheckSeal): each carries its writer's seal (seal.go), which
// a commit made by hand on the ledger ref, or a peer's event, cannot show.
func Sealed() KindOption { return func(d *declared) { d.sealed = true } }

// IsSealed reports whether kind was declared Sealed.
func IsSealed(kind string) bool {
	registry.RLock()
	defer registry.RUnlock()
	return registry.kinds[kind].sealed
}

// Kind is an event kind whose data is a T.
type Kind[T any] struct {
	name  string
	owner *Owner
}

// Declare registers kind as o's, with data of type T, a struct (event data
// is a JSON object). It panics on a malformed or user kind and on a kind
// declared twice: those are mistakes in the program, found when it starts.
func Declare[T any](o *Owner, kind string, opts ...KindOption) Kind[T] {
	if err := ValidateKind(kind); err != nil {
		panic("gitstore: " + err.Error())
	}
	if IsUserKind(kind) {
		panic(fmt.Sprintf("gitstore: %q is a user kind; no feature may own it", kind))
	}
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("gitstore: the data of %q must be a struct, not %s", kind, t))
	}
	d := declared{owner: o, payload: t}
	for _, opt := range opts {
		opt(&d)
	}
	registry.Lock()
	defer registry.Unlock()
	if prev, ok := registry.kinds[kind]; ok {
		panic(fmt.Sprintf("gitstore: kind %q declared twice (by %s and %s)", kind, prev.owner.name, o.name))
	}
	registry.kinds[kind] = d
	return Kind[T]{name: kind, owner: o}
}

// Reading is a kind declared by a package the reader cannot import (the
// sessions daemon's, which only agentproto-sessions links), seen as the
// documented shape T of its data: it decodes, and it refuses to record.
func Reading[T any](kind string) Kind[T] { return Kind[T]{name: kind} }

// String returns the kind's name as events carry it.
func (k Kind[T]) String() string { return k.name }

// Record appends one event of kind k to s. The result says whether it was
// written now or was already recorded with the same content.
func (k Kind[T]) Record(s Store, id string, data T, atts ...AttachmentInput) (*AppendResult, error) {
	if k.owner == nil {
		return nil, fmt.Errorf("kind %s is read here, not recorded", k.name)
	}
	return k.owner.Record(s, k.name, id, data, atts...)
}

// Draft makes the draft of one event of kind k, for a batch.
func (k Kind[T]) Draft(id string, data T, atts ...AttachmentInput) (Draft, error) {
	if k.owner == nil {
		return Draft{}, fmt.Errorf("kind %s is read here, not recorded", k.name)
	}
	return k.owner.Draft(k.name, id, data, atts...)
}

// Decode reads e's data as a T. It fails on an event of another kind.
func (k Kind[T]) Decode(e *Event) (T, error) {
	var v T
	if e.Kind != k.name {
		return v, fmt.Errorf("record %s is a %s event, not %s", e.ID, e.Kind, k.name)
	}
	if err := json.Unmarshal(e.Data, &v); err != nil {
		return v, fmt.Errorf("record %s (%s): data does not decode: %v", e.ID, e.Kind, err)
	}
	return v, nil
}

// Record appends one event of a kind o declared, with data of its
// declared type (or a pointer to one): the shape a feature's own record
// helper calls when the kind is chosen at run time.
func (o *Owner) Record(s Store, kind, id string, data any, atts ...AttachmentInput) (*AppendResult, error) {
	d, err := o.Draft(kind, id, data, atts...)
	if err != nil {
		return nil, err
	}
	return s.Append([]Draft{d})
}

// Draft makes the draft of an event of a kind o declared, for a batch.
func (o *Owner) Draft(kind, id string, data any, atts ...AttachmentInput) (Draft, error) {
	registry.RLock()
	decl, ok := registry.kinds[kind]
	registry.RUnlock()
	switch {
	case !ok:
		return Draft{}, fmt.Errorf("%s records %q, which it has not declared", o.name, kind)
	case decl.owner != o:
		return Draft{}, fault.Refusedf("kind %q belongs to %s; %s cannot record it", kind, decl.owner.name, o.name)
	}
	t := reflect.TypeOf(data)
	if t != decl.payload && t != reflect.PointerTo(decl.payload) {
		return Draft{}, fmt.Errorf("%s: the data of %q is a %s, given a %v", o.name, kind, decl.payload, t)
	}
	b, err := json.Marshal(data)
	if err != nil {
		return Draft{}, fmt.Errorf("record %s: %w", id, err)
	}
	if decl.scrub {
		b = secrets.ScrubJSON(b)
		scrubbed := make([]AttachmentInput, len(atts))
		for i, a := range atts {
			scrubbed[i] = AttachmentInput{Name: a.Name, Content: secrets.ScrubBytes(a.Content)}
		}
		atts = scrubbed
	}
	return Draft{Kind: kind, ID: id, Data: b, Attachments: atts, owner: o}, nil
}

// KindOwner names the feature that declared kind, or "" for a kind no
// feature declared.
func KindOwner(kind string) string {
	registry.RLock()
	defer registry.RUnlock()
	if d, ok := registry.kinds[kind]; ok {
		return d.owner.name
	}
	return registry.elsewhere[kind]
}

// OwnedElsewhere names owner as the feature of kinds it declares in a
// package this program may not link — the sessions daemon's, which only
// agentproto-sessions links — so that KindOwner still names it. It
// records nothing and allows nothing: the kinds stay unwritable here.
func OwnedElsewhere(owner string, kinds ...string) {
	registry.Lock()
	defer registry.Unlock()
	for _, k := range kinds {
		registry.elsewhere[k] = owner
	}
}

// DeclaredBy lists, sorted, the kinds owner declared in this program.
func DeclaredBy(owner string) []string {
	registry.RLock()
	defer registry.RUnlock()
	var out []string
	for k, d := range registry.kinds {
		if d.owner.name == owner {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// checkOwner applies the ownership rules to one draft (see Validate).
func checkOwner(d *Draft, user bool) error {
	if IsUserKind(d.Kind) {
		if !user {
			return fault.Refusedf("record %s: kind %q is a user kind; only the user path (ledger append) records it", d.ID, d.Kind)
		}
		return nil
	}
	if user {
		return fault.Refusedf("kind %q belongs to its own command; ledger append accepts only note and x.NAME kinds", d.Kind)
	}
	registry.RLock()
	decl, ok := registry.kinds[d.Kind]
	registry.RUnlock()
	if ok && d.owner != decl.owner {
		return fault.Refusedf("record %s: kind %q belongs to %s; only it records that kind", d.ID, d.Kind, decl.owner.name)
	}
	return nil
}
