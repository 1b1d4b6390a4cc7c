package gitstore_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/gitrepo"
)

// The ledger's story, told with two clones of one project.
//
// Alice and Bob each append events in their own clone. Every event is a
// commit on the clone's own writer ref, refs/agentproto/ledger/<writer>,
// so neither ever overwrites the other. Sync pushes each clone's ref and
// fetches everyone else's; both clones then read the union, in the same
// (lamport, writer, id) order.
func Example() {
	root, _ := os.MkdirTemp("", "ledger-example-")
	defer os.RemoveAll(root)
	git := func(dir string, args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			panic(fmt.Sprintf("git %v: %v\n%s", args, err, out))
		}
	}

	// A bare remote and two clones of it.
	git(root, "init", "-q", "--bare", "remote.git")
	git(root, "clone", "-q", "remote.git", "alice")
	git(root, "clone", "-q", "remote.git", "bob")
	open := func(name string) *gitstore.Ledger {
		repo, err := gitrepo.Discover(filepath.Join(root, name))
		if err != nil {
			panic(err)
		}
		return gitstore.Open(repo, gitstore.Options{})
	}
	alice, bob := open("alice"), open("bob")

	// Alice records that a plan exists. The record id makes the append
	// idempotent: replaying it writes nothing.
	plan := gitstore.Draft{Kind: "note", ID: "plan-1", Data: json.RawMessage(`{"wps":3}`)}
	alice.AppendUser([]gitstore.Draft{plan})
	res, _ := alice.AppendUser([]gitstore.Draft{plan})
	fmt.Println("replayed, written:", len(res.Written))

	// Reusing the id with other content is a conflict, and nothing is written.
	_, err := alice.AppendUser([]gitstore.Draft{{Kind: "note", ID: "plan-1", Data: json.RawMessage(`{"wps":4}`)}})
	fmt.Println("conflict:", err != nil)

	// Alice syncs; Bob syncs, sees her event, answers, and syncs back.
	alice.Sync("origin")
	bob.Sync("origin")
	bob.AppendUser([]gitstore.Draft{{Kind: "note", ID: "review-1", Data: json.RawMessage(`{"ok":true}`)}})
	bob.Sync("origin")
	alice.Sync("origin")

	// Both read the same events in the same order: Bob's review comes
	// after the plan because his clock moved past the plan's when he read it.
	for _, l := range []*gitstore.Ledger{alice, bob} {
		var ids []string
		l.Each(gitstore.Query{Reverse: true}, func(e *gitstore.Event) error {
			ids = append(ids, fmt.Sprintf("%s@%d", e.ID, e.Lamport))
			return nil
		})
		fmt.Println(ids)
	}
	// Output:
	// replayed, written: 0
	// conflict: true
	// [plan-1@1 review-1@2]
	// [plan-1@1 review-1@2]
}
