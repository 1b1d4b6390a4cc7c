package gitstore

import (
	"fmt"

	"github.com/agentproto/agentproto/internal/secrets"
)

// refuseSecrets refuses a draft holding a secret in any field or
// attachment: the ledger is pushed to every clone and never forgets. The
// error names the field and the kind of secret, never its value.
func refuseSecrets(d *Draft) error {
	s := secrets.Default()
	if err := s.Refuse("the record id", d.ID); err != nil {
		return err
	}
	where := "record " + d.ID + ":"
	for _, f := range []struct{ name, v string }{{"kind", d.Kind}, {"goal", d.Goal}, {"agent", d.Agent}} {
		if err := s.Refuse(where+" "+f.name, f.v); err != nil {
			return err
		}
	}
	if err := s.RefuseJSON(where+" data", d.Data); err != nil {
		return err
	}
	for _, a := range d.Attachments {
		if err := s.Refuse(fmt.Sprintf("%s attachment %q", where, a.Name), string(a.Content)); err != nil {
			return err
		}
	}
	return nil
}
