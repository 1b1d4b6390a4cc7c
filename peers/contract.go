package peers

import (
	"strings"

	"github.com/agentproto/agentproto/internal/fault"
)

// Contract is a peer's interaction contract: how it may be addressed
// (Via) and by whom (By). The supervisor reads it in the packet before it
// proposes an inject or a handoff to the peer.
type Contract struct {
	Via []string `json:"via"`
	By  []string `json:"by"`
}

// ContractVia are the ways a peer can be addressed.
var ContractVia = []string{"inject", "handoff", "todo", "none"}

// ContractBy names who may address a peer, besides a registered agent id.
var ContractBy = []string{"user", "supervisor", "peers"}

// validate checks the contract's closed sets; a name in By that is none of
// ContractBy must be a valid agent id.
func (c *Contract) validate() error {
	for _, v := range c.Via {
		if !contains(ContractVia, v) {
			return fault.Invalidf("--address-via %q is not one of %s", v, strings.Join(ContractVia, ", "))
		}
	}
	if contains(c.Via, "none") && len(c.Via) > 1 {
		return fault.Invalidf("--address-via none cannot be given with another way")
	}
	for _, b := range c.By {
		if contains(ContractBy, b) {
			continue
		}
		if err := ValidateName("--addressed-by", b); err != nil {
			return err
		}
	}
	if len(c.By) > 0 && len(c.Via) == 0 {
		return fault.Invalidf("--addressed-by needs --address-via: say how the peer is addressed")
	}
	return nil
}

// admits refuses a decision of kind by supervisor that the target's stated
// contract rules out: a way it did not list, or a supervisor it does not
// accept. A peer that stated no contract is only warned about in the
// packet; refusing it would break every registration made before
// contracts existed.
func (c *Contract) admits(target, kind, supervisor string) error {
	if c == nil || (kind != KindInject && kind != KindHandoff) {
		return nil
	}
	if !contains(c.Via, kind) {
		return fault.Refusedf("%s's interaction contract does not take %s (it is addressed via %s)", target, kind, strings.Join(orNone(c.Via), ", "))
	}
	if len(c.By) > 0 && !contains(c.By, "supervisor") && !contains(c.By, supervisor) {
		return fault.Refusedf("%s's interaction contract does not let %s address it (only %s)", target, supervisor, strings.Join(c.By, ", "))
	}
	return nil
}

func orNone(v []string) []string {
	if len(v) == 0 {
		return []string{"none"}
	}
	return v
}
