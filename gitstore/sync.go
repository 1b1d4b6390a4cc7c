package gitstore

import (
	"bufio"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitrepo"
)

// FetchRefspecs are the fetch lines a remote needs so that a plain
// `git fetch` brings other writers' ledger refs. They never force, and they
// leave this clone's own writer ref out: it is only ever written here, and a
// remote copy that lags behind would otherwise be a rejected update.
func FetchRefspecs(writer string) []string {
	return []string{"refs/agentproto/*:refs/agentproto/*", "^" + LedgerRefPrefix + writer}
}

// EnsureFetchRefspecs adds the ledger fetch refspecs to remote, once. It
// never adds a push refspec: that would change what a plain `git push` sends.
func EnsureFetchRefspecs(repo *gitrepo.Repo, remote, writer string) (added []string, err error) {
	values, err := repo.ConfigValues("remote." + remote + ".fetch")
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for _, v := range values {
		have[strings.TrimSpace(v)] = true
	}
	for _, spec := range FetchRefspecs(writer) {
		if have[spec] {
			continue
		}
		if err := repo.AddConfigValue("remote."+remote+".fetch", spec); err != nil {
			return added, err
		}
		added = append(added, spec)
	}
	return added, nil
}

// RefMove is one ref that a sync moved.
type RefMove struct {
	Ref    string `json:"ref"`
	Old    string `json:"old,omitempty"`
	New    string `json:"new"`
	Events int    `json:"events"`
	Status string `json:"status"`
}

// SyncReport says what a sync moved in each direction.
type SyncReport struct {
	Remote  string    `json:"remote"`
	Fetched []RefMove `json:"fetched"`
	Pushed  *RefMove  `json:"pushed,omitempty"`
	Events  int       `json:"events"`
	// Quarantined lists peer refs their writer rewound on the remote.
	Quarantined []Quarantine `json:"quarantined"`
	// Warnings are the problems met that lost nothing (an index rebuilt).
	Warnings Warnings `json:"warnings,omitempty"`
}

// Sync fetches every other writer's ledger ref from remote and pushes this
// clone's own, through the git CLI so the user's credentials, ssh config and
// url rewrites apply. Updates never force a ref over events it holds: a
// peer ref that its writer rewound on the remote is quarantined (its old
// tip kept under QuarantinePrefix, the ref following the remote) and
// reported, and the sync goes on with the other refs and the push.
func (l *Ledger) Sync(remote string) (*SyncReport, error) {
	if _, err := l.repo.RemoteURL(remote); err != nil {
		return nil, fault.Invalidf("no remote named %q (see git remote -v)", remote)
	}
	writer, _, err := EnsureWriterID(l.repo.CommonDir)
	if err != nil {
		return nil, err
	}
	own := LedgerRefPrefix + writer
	rep := &SyncReport{Remote: remote, Fetched: []RefMove{}, Quarantined: []Quarantine{}}
	if err := l.clearBrokenPeers(own, rep); err != nil {
		return nil, err
	}
	before, err := l.tips(nil)
	if err != nil {
		return nil, err
	}
	if _, ferr := l.repo.Git(append([]string{"fetch", "--quiet", "--no-write-fetch-head", remote}, FetchRefspecs(writer)...)...); ferr != nil {
		// Some ref did not fast-forward, or the remote is unreachable:
		// sort it out ref by ref.
		q, err := l.reconcile(remote, own)
		if err != nil {
			return nil, err
		}
		if len(q) == 0 {
			return nil, fmt.Errorf("fetching ledger refs from %s: %w", remote, ferr)
		}
		rep.Quarantined = q
	}
	after, err := l.tips(nil)
	if err != nil {
		return nil, err
	}
	l.dropRedundantKept(after)
	refs := make([]string, 0, len(after))
	for r := range after {
		refs = append(refs, r)
	}
	sort.Strings(refs)
	quarantined := map[string]bool{}
	for _, q := range rep.Quarantined {
		quarantined[q.Ref] = true
	}
	for _, r := range refs {
		if r == own || before[r] == after[r] || quarantined[r] || !strings.HasPrefix(r, LedgerRefPrefix) {
			continue
		}
		m := RefMove{Ref: r, Old: before[r], New: after[r], Status: "updated"}
		if m.Old == "" {
			m.Status = "new"
		}
		m.Events = l.countBetween(m.Old, m.New)
		rep.Fetched = append(rep.Fetched, m)
	}
	if tip := after[own]; tip != "" {
		m, err := l.push(remote, own, tip)
		if err != nil {
			return nil, err
		}
		rep.Pushed = m
	}
	n, w, err := l.Count()
	rep.Events, rep.Warnings = n, append(rep.Warnings, w...)
	return rep, err
}

// clearBrokenPeers moves the unreadable ref files of other writers out of
// git's way, so that the fetch can restore them from the remote, after the
// index has kept the tip it last read of each (keep.go).
func (l *Ledger) clearBrokenPeers(own string, rep *SyncReport) error {
	_, broken, err := l.refs.ListAll(LedgerRefPrefix)
	if err != nil || len(broken) == 0 {
		return err
	}
	for _, b := range broken {
		if b.Name == own {
			return b
		}
	}
	if _, w, err := l.Count(); err != nil {
		return err
	} else {
		rep.Warnings = append(rep.Warnings, w...)
	}
	for _, b := range broken {
		dst, err := l.setAsideBrokenRef(b)
		if err != nil {
			return err
		}
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("ref %s could not be read; moved its file to %s and fetched it again", b.Name, dst))
	}
	return nil
}

func (l *Ledger) countBetween(old, new string) int {
	args := []string{"rev-list", "--count", new}
	if old != "" {
		args = append(args, "^"+old)
	}
	out, err := l.repo.Git(args...)
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	return n
}

// push sends this clone's writer ref and reads git's porcelain report.
func (l *Ledger) push(remote, ref, tip string) (*RefMove, error) {
	cmd := l.repo.Command("push", "--porcelain", remote, ref+":"+ref)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()
	m := &RefMove{Ref: ref, New: tip}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), "\t", 3)
		if len(parts) < 3 || !strings.HasSuffix(parts[1], ":"+ref) {
			continue
		}
		switch parts[0] {
		case "=":
			m.Status = "up to date"
		case "*":
			m.Status = "new"
		case " ", "+":
			m.Status = "updated"
			if old, _, ok := strings.Cut(parts[2], ".."); ok {
				m.Old = old
			}
		case "!":
			return nil, fmt.Errorf("the remote %s refused %s: %s", remote, ref, strings.Trim(parts[2], "()"))
		}
	}
	if runErr != nil {
		msg := strings.TrimSpace(stderr.String())
		return nil, fmt.Errorf("pushing %s to %s failed: %s", ref, remote, msg)
	}
	if m.Old != "" {
		m.Events = l.countBetween(m.Old, tip)
	} else if m.Status == "new" {
		m.Events = l.countBetween("", tip)
	}
	return m, nil
}
