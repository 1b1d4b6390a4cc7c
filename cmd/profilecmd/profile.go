// Package profilecmd wires `profile check`.
package profilecmd

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/profiles"
)

// NewCmdProfile returns the `profile` command.
func NewCmdProfile(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "profile <command>", Short: "Check executor profiles before dispatching work"}
	var asJSON bool
	check := &cobra.Command{
		Use:   "check [NAME...] [--json]",
		Short: "Preflight profiles: adapter found and pinned, auth supported, key set, model declared; exit 1 on a problem",
		RunE: func(cmd *cobra.Command, args []string) error {
			repo, err := f.Repo()
			if err != nil {
				return err
			}
			cfg, _, err := f.Config()
			if err != nil {
				return err
			}
			if len(cfg.Profiles) == 0 && len(args) == 0 {
				if asJSON {
					return cmdutil.ExportJSON(cmd, f.IO.Out, []profiles.Result{})
				}
				fmt.Fprintln(f.IO.Out, "no [profiles] configured")
				return nil
			}
			rs := profiles.Check(cfg, repo.WorkTree, args, os.Getenv)
			if asJSON {
				cmdutil.ExportJSON(cmd, f.IO.Out, rs)
			} else {
				PrintTable(f, rs)
			}
			for _, r := range rs {
				if !r.OK {
					return cmdutil.Silent(fmt.Errorf("profile %s has problems", r.Name))
				}
			}
			return nil
		},
	}
	cmdutil.AddJSONFlags(check, &asJSON, "print as JSON")
	cmd.AddCommand(check)
	return cmd
}

// PrintTable prints preflight results as a table, problems under each row.
func PrintTable(f *cmdutil.Factory, rs []profiles.Result) {
	fmt.Fprintf(f.IO.Out, "%-14s %-12s %-22s %-13s %-9s %-5s %-4s %s\n", "PROFILE", "ADAPTER", "MODEL", "AUTH", "CHECKSUM", "KEY", "OK", "MODEL CHECK")
	for _, r := range rs {
		key := "yes"
		if !r.KeySet {
			key = "no"
		}
		ok := "yes"
		if !r.OK {
			ok = "NO"
		}
		fmt.Fprintf(f.IO.Out, "%-14s %-12s %-22s %-13s %-9s %-5s %-4s %s\n", r.Name, r.Adapter, dash(r.Model), r.Auth, r.Checksum, key, ok, r.ModelOK)
		for _, p := range r.Problems {
			fmt.Fprintf(f.IO.Out, "    %s\n", p)
		}
	}
}

func dash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}
