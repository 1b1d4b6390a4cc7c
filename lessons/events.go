package lessons

import "github.com/agentproto/agentproto/gitstore"

// Kind is the ledger kind of a lesson.
const Kind = "lesson_added"

// owner records lessons; no other package can.
var owner = gitstore.NewOwner("lessons")

var lessonKind = gitstore.Declare[Lesson](owner, Kind)

// Lesson is one gotcha, the data of a lesson_added event.
type Lesson struct {
	Text string   `json:"text"`
	Tags []string `json:"tags"`
	// Time is the event's, set when read back.
	Time string `json:"time,omitempty"`
}
