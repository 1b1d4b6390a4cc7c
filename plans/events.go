package plans

import (
	"maps"
	"slices"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/scout"
)

// Ledger event kinds owned by the plan commands.
const (
	KindFrozen  = "plan_frozen"
	KindAmended = "plan_amended"
)

// owner records the plan kinds; no other package can.
var owner = gitstore.NewOwner("plans")

var (
	frozenKind  = gitstore.Declare[Frozen](owner, KindFrozen)
	amendedKind = gitstore.Declare[Amendment](owner, KindAmended)
)

// Frozen is the data of a plan_frozen event.
type Frozen struct {
	Project    string            `json:"project"`
	Base       string            `json:"base"`
	BaseCommit string            `json:"base_commit"`
	Gate       string            `json:"gate"`
	Files      map[string]string `json:"files"` // file name -> sha256
	WPs        []WP              `json:"wps"`
	// Recon is the verdict on each claim of RECON.md, frozen with it: the
	// briefs stand on what was verified, moved or left unverified then.
	Recon *scout.Result `json:"recon,omitempty"`
	// Set when read back from the ledger.
	RecordID string `json:"-"`
	Time     string `json:"-"`
	// PlanBlob is the git blob of plan.toml as frozen (an attachment of
	// the freeze): what FrozenPlan reads the shared files from.
	PlanBlob string `json:"-"`
	// Warnings are what recording it met (Freeze), never recorded.
	Warnings gitstore.Warnings `json:"-"`
}

// Amendment is the data of a plan_amended event.
type Amendment struct {
	Project    string `json:"project"`
	Correction string `json:"correction"`
	SpecSHA256 string `json:"spec_sha256"`
	Date       string `json:"date"`
	// File is the amended file when it is not the SPEC (RECON.md), and
	// FileSHA256 its hash after the amendment.
	File       string `json:"file,omitempty"`
	FileSHA256 string `json:"sha256,omitempty"`
}

// FrozenProjects names every plan the ledger holds a freeze of, sorted.
func FrozenProjects(l gitstore.Store) ([]string, error) {
	names := map[string]bool{}
	_, err := gitstore.Fold(l, names, gitstore.On(frozenKind, func(names map[string]bool, _ *gitstore.Event, f Frozen) {
		if f.Project != "" {
			names[f.Project] = true
		}
	}))
	if err != nil {
		return nil, err
	}
	return slices.Sorted(maps.Keys(names)), nil
}
