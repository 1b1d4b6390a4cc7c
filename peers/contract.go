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
