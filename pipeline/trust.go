package pipeline

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/fault"
)

// The pipeline trusts only the events it wrote itself. Its kinds are
// sealed (events.go): a wp_verified made by hand on the ledger ref with
// git plumbing, or a peer's, carries no seal of this clone, and is left
// out of the state ReadState folds. What was left out is kept, so the
// steps that would have acted on it refuse and name it.

// Untrusted is a pipeline event of the plan that this clone's pipeline did
// not write.
type Untrusted struct {
	Record string `json:"record"`
	Kind   string `json:"kind"`
	WP     string `json:"wp,omitempty"`
	Writer string `json:"writer"`
	// Foreign is another clone's event: it may be genuine there, but
	// nothing here can tell.
	Foreign bool   `json:"foreign,omitempty"`
	Why     string `json:"why"`
	// verification is the data of an untrusted wp_verified, which only
	// VerifyBranch reads (a CI job holds a ledger fetched from elsewhere).
	verification *Verification
}

func (u Untrusted) String() string {
	return fmt.Sprintf("%s %s (writer %s) is not trusted: %s", u.Kind, u.Record, u.Writer, u.Why)
}

// distrusted checks e's seal; when the pipeline did not write it, it
// keeps why in st and reports true. Only a failure to check is an error.
func (st *State) distrusted(l gitstore.Store, e *gitstore.Event, wp string) (bool, error) {
	err := l.CheckSeal(e)
	var se *gitstore.SealError
	if err == nil || !errors.As(err, &se) {
		return err != nil, err
	}
	st.Untrusted = append(st.Untrusted, Untrusted{Record: e.ID, Kind: e.Kind, WP: wp, Writer: e.Writer, Foreign: se.Foreign, Why: se.Why})
	return true, nil
}

// UntrustedVerification returns the untrusted wp_verified of wp that is
// newer than its latest trusted one, if any: then wp's verification is in
// doubt, whatever the trusted one says.
func (st *State) UntrustedVerification(wp string) (Untrusted, bool) {
	u, ok := st.doubted[wp]
	return u, ok
}

// refuseUntrusted is the refusal of a step that needs wp's verification
// when an untrusted one is newer: it names the record.
func (st *State) refuseUntrusted(project, wp string) error {
	u, ok := st.UntrustedVerification(wp)
	if !ok {
		return nil
	}
	return fault.Refusedf("%s's latest verification is not one this clone's pipeline wrote: %v; run git agentproto verify %s %s (and git agentproto ledger verify)", wp, u, project, wp)
}

// refuseAnyUntrusted refuses when any WP's verification is in doubt,
// naming each record.
func (st *State) refuseAnyUntrusted(project string) error {
	var lines []string
	for wp := range st.doubted {
		lines = append(lines, st.refuseUntrusted(project, wp).Error())
	}
	if len(lines) == 0 {
		return nil
	}
	sort.Strings(lines)
	return fault.Refusedf("%s", strings.Join(lines, "; "))
}
