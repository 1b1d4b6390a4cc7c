package gitstore

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/agentproto/agentproto/internal/gitref"
	"github.com/agentproto/agentproto/internal/gitrepo"
)

// QuarantinePrefix keeps the old tips of peer refs that their writer
// rewound: not read as ledger events, never pushed, never lost.
const QuarantinePrefix = "refs/agentproto/quarantine/"

// incomingPrefix is where a sync stages the remote's ledger refs while it
// sorts fast-forwards from rewinds; it is emptied before the sync returns.
const incomingPrefix = "refs/agentproto/incoming/"

// Quarantine is a peer ref a sync found rewound on the remote: the old tip
// is kept under KeptAs and the ref follows the remote again.
type Quarantine struct {
	Ref    string `json:"ref"`
	Old    string `json:"old"`
	New    string `json:"new"`
	KeptAs string `json:"kept_as"`
	Events int    `json:"events"` // events of the old tip the new one lacks
}

// reconcile runs after a plain fetch refused some refs: it fetches the
// remote's ledger refs into a staging namespace, fast-forwards the refs
// that can be, and quarantines the ones whose writer rewound them.
func (l *Ledger) reconcile(remote, own string) ([]Quarantine, error) {
	writer := strings.TrimPrefix(own, LedgerRefPrefix)
	spec := "+" + LedgerRefPrefix + "*:" + incomingPrefix + "ledger/*"
	l.dropIncoming() // left by a sync that was killed
	defer l.dropIncoming()
	// An empty --refmap keeps git from also updating the configured
	// (non-forcing) ledger refspec, which is what refused in the first place.
	if _, err := l.repo.Git("fetch", "--quiet", "--no-write-fetch-head", "--refmap=", remote, spec, "^"+LedgerRefPrefix+writer); err != nil {
		return nil, fmt.Errorf("fetching ledger refs from %s: %w", remote, err)
	}
	staged, err := l.refs.List(incomingPrefix + "ledger/")
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(staged))
	for r := range staged {
		names = append(names, r)
	}
	sort.Strings(names)
	var out []Quarantine
	for _, s := range names {
		ref := LedgerRefPrefix + strings.TrimPrefix(s, incomingPrefix+"ledger/")
		if ref == own {
			continue
		}
		remoteTip := staged[s]
		local, err := l.refs.Read(ref)
		if err != nil {
			return out, err
		}
		if local == remoteTip {
			continue
		}
		if local == "" || isAncestor(l.repo, local, remoteTip) {
			if err := l.refs.Update(ref, remoteTip, local); err != nil {
				return out, fmt.Errorf("updating %s: %w", ref, err)
			}
			continue
		}
		q := Quarantine{Ref: ref, Old: local, New: remoteTip, Events: l.countBetween(remoteTip, local)}
		if q.KeptAs, err = l.keep(ref, local); err != nil {
			return out, err
		}
		if err := l.refs.Update(ref, remoteTip, local); err != nil {
			return out, fmt.Errorf("updating %s after keeping its old tip as %s: %w", ref, q.KeptAs, err)
		}
		out = append(out, q)
	}
	return out, nil
}

// keep stores tip under a new quarantine ref for the writer of ref.
func (l *Ledger) keep(ref, tip string) (string, error) {
	base := QuarantinePrefix + strings.TrimPrefix(ref, LedgerRefPrefix) + "/" + l.opts.Now().UTC().Format("20060102T150405Z")
	name := base
	for i := 2; ; i++ {
		err := l.refs.Update(name, tip, "")
		if err == nil {
			return name, nil
		}
		if !errors.Is(err, gitref.ErrStale) || i > 100 {
			return "", fmt.Errorf("keeping the old tip of %s: %w", ref, err)
		}
		name = fmt.Sprintf("%s-%d", base, i)
	}
}

func isAncestor(repo *gitrepo.Repo, a, b string) bool { return repo.IsAncestor(a, b) }

// dropIncoming deletes the staging refs of a sync.
func (l *Ledger) dropIncoming() {
	staged, _, _ := l.refs.ListAll(incomingPrefix)
	for r := range staged {
		l.repo.DeleteRef(r, "")
	}
}
