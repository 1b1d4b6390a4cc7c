package gitstore_test

import (
	"fmt"
	"os"
	"os/exec"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/gitrepo"
)

// A feature's events, as a feature declares them (in its events.go): one
// Owner, kept unexported so that no other package can record its kinds,
// and one Kind per event, typed by the struct its data is.
type taskDone struct {
	Task string `json:"task"`
	Secs int    `json:"secs"`
}

var (
	tasks        = gitstore.NewOwner("example-tasks")
	taskDoneKind = gitstore.Declare[taskDone](tasks, "example_task_done")
)

// The typed life of an event: recorded through its kind, read back by one
// fold into a projection, never decoded from bytes by the feature. A
// user's note that claims to be a task is still a note.
func ExampleFold() {
	dir, _ := os.MkdirTemp("", "ledger-typed-")
	defer os.RemoveAll(dir)
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		panic(fmt.Sprintf("git init: %v\n%s", err, out))
	}
	repo, _ := gitrepo.Discover(dir)
	l := gitstore.Open(repo, gitstore.Options{})

	taskDoneKind.Record(l, "task/build", taskDone{Task: "build", Secs: 40})
	taskDoneKind.Record(l, "task/test", taskDone{Task: "test", Secs: 95})
	res, _ := taskDoneKind.Record(l, "task/test", taskDone{Task: "test", Secs: 95})
	fmt.Println("replayed, written:", len(res.Written))

	// The user path takes notes, whatever their data says...
	l.AppendUser([]gitstore.Draft{{Kind: "note", ID: "n1", Data: []byte(`{"kind":"example_task_done","task":"deploy","secs":1}`)}})
	// ...and refuses a feature's kind, as the feature path refuses a raw one.
	_, err := l.AppendUser([]gitstore.Draft{{Kind: "example_task_done", ID: "forged", Data: []byte(`{}`)}})
	fmt.Println("forged on the user path:", err != nil)
	_, err = l.Append([]gitstore.Draft{{Kind: "example_task_done", ID: "forged", Data: []byte(`{}`)}})
	fmt.Println("raw on the feature path:", err != nil)

	// One fold builds the projection, oldest first, from the kind index.
	type total struct {
		tasks []string
		secs  int
	}
	t := &total{}
	warnings, err := gitstore.Fold(l, t, gitstore.On(taskDoneKind, func(t *total, e *gitstore.Event, d taskDone) {
		t.tasks = append(t.tasks, d.Task)
		t.secs += d.Secs
	}))
	fmt.Println(t.tasks, t.secs, len(warnings), err)
	// Output:
	// replayed, written: 0
	// forged on the user path: true
	// raw on the feature path: true
	// [build test] 135 0 <nil>
}
