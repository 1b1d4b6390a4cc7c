package app

import (
	"encoding/json"
	"io"
	"path/filepath"
	"strings"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/inputfile"
)

// EventInput is one event to append as a person gives it on the command
// line: its data inline or in a file (- for stdin), and the files to
// attach, each NAME=PATH or a PATH named by its base.
type EventInput struct {
	Kind, ID, Goal, Agent string
	Data, DataFile        string
	Attach                []string
}

// EventDrafts reads in into the draft of one event, or with batch the
// drafts of the JSON lines of stdin. Files are read whole, regular files
// only, within the ledger's bounds on data and attachments.
func EventDrafts(in EventInput, batch bool, stdin io.Reader) ([]gitstore.Draft, error) {
	if batch {
		return gitstore.ReadBatch(stdin)
	}
	d := gitstore.Draft{Kind: in.Kind, ID: in.ID, Goal: in.Goal, Agent: in.Agent, Data: json.RawMessage(in.Data)}
	if in.DataFile != "" {
		var b []byte
		var err error
		if in.DataFile == "-" {
			b, err = io.ReadAll(io.LimitReader(stdin, gitstore.MaxDataSize+1))
			if err != nil {
				return nil, fault.Invalidf("reading --data-file: %v", err)
			}
		} else if b, err = inputfile.Read("--data-file", in.DataFile, gitstore.MaxDataSize); err != nil {
			return nil, err
		}
		d.Data = b
	}
	for _, spec := range in.Attach {
		name, path, ok := strings.Cut(spec, "=")
		if !ok {
			path, name = spec, filepath.Base(spec)
		}
		content, err := inputfile.Read("--attach", path, gitstore.MaxAttachmentSize)
		if err != nil {
			return nil, err
		}
		d.Attachments = append(d.Attachments, gitstore.AttachmentInput{Name: name, Content: content})
	}
	return []gitstore.Draft{d}, nil
}
