// Command gen-man writes the man pages of git-agentproto: one page for the
// root (git-agentproto.1, what `git agentproto --help` opens) and one per
// command (git-agentproto-ledger-append.1, ...).
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra/doc"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/cmd/root"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gen-man DIR")
		os.Exit(2)
	}
	dir := os.Args[1]
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cmd := root.NewCmdRoot(cmdutil.New(cmdutil.System(), root.Version()))
	cmd.DisableAutoGenTag = true
	header := &doc.GenManHeader{Title: "GIT-AGENTPROTO", Section: "1", Source: "agentproto " + root.Version(), Manual: "Git Manual"}
	if err := doc.GenManTree(cmd, header, dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
