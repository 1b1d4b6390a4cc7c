package plans

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentproto/agentproto/internal/config"
)

// Markers delimit the contract block so that checks can find it and compare
// it byte for byte.
const (
	ContractBegin = "<!-- agentproto:contract-block BEGIN (paste verbatim; never edit) -->"
	ContractEnd   = "<!-- agentproto:contract-block END -->"
)

// defaultContract is the built-in block; %s is the agent-instructions file.
const defaultContract = `## Contract

1. Definition of done: read %s at the root of the repository. It is the
   definition of done for this work; it is not restated here.
2. A gate is an exit code. Run the gate exactly as written and report its real
   exit code. Never pipe a gate (| tail, | head, | grep): a pipe hides the
   exit code.
3. Truth is the disk. Your work is verified by reading the files and re-running
   the gate, never from your report. Do not claim what the disk does not show.
4. Waits block. When you start something you must wait for, wait until it ends;
   do not poll in a loop or report progress as done.
5. A design fork this brief does not cover means STOP and ask. Do not pick.
6. Stay in your perimeter: change only the paths this brief says you own.
   Shared files belong to nobody: list the exact lines you need in them.
7. End with a report listing: files touched; design choices; the exact wiring
   lines for shared files (file and line); every command you ran for
   verification with its real exit code.`

// ContractBlock returns the block every brief must start with, markers
// included: the repository's own text when [plans] contract_block names a
// file, else the built-in one pointing at the agent-instructions file.
func ContractBlock(workTree string, cfg config.Plans) (string, error) {
	body := fmt.Sprintf(defaultContract, cfg.AgentInstructions)
	if cfg.ContractBlock != "" {
		b, err := os.ReadFile(filepath.Join(workTree, cfg.ContractBlock))
		if err != nil {
			return "", fmt.Errorf("[plans] contract_block: %w", err)
		}
		body = strings.TrimRight(string(b), "\n")
	}
	return ContractBegin + "\n" + body + "\n" + ContractEnd + "\n", nil
}

// compareContract checks that brief holds the block verbatim. It returns
// "" when it does, else where and how the text first differs.
func compareContract(brief, block string) (code, detail string) {
	i := strings.Index(brief, ContractBegin)
	if i < 0 {
		return "contract-block-missing", "the brief does not contain the contract block (begin marker not found)"
	}
	got := brief[i:]
	if strings.HasPrefix(got, block) {
		return "", ""
	}
	n := 0
	for n < len(got) && n < len(block) && got[n] == block[n] {
		n++
	}
	line := strings.Count(brief[:i+n], "\n") + 1
	want := firstLine(block[n:])
	have := firstLine(got[n:])
	return "contract-block-altered", fmt.Sprintf("the contract block differs from the canonical text at line %d: expected %q, found %q", line, want, have)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 60 {
		s = s[:60] + "..."
	}
	return s
}
