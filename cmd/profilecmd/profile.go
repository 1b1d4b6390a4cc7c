// Package profilecmd wires `profile check` and `profile trust`.
package profilecmd

import (
	"context"
	"fmt"
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
			rs, err := f.App().CheckProfiles(context.Background(), args)
			if err != nil {
				return err
			}
			if len(rs) == 0 && len(args) == 0 && !asJSON {
				fmt.Fprintln(f.IO.Out, "no [profiles] configured")
				return nil
			}
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
	cmd.AddCommand(check, newCmdTrust(f))
	return cmd
}

func newCmdTrust(f *cmdutil.Factory) *cobra.Command {
	var show, asJSON bool
	var dir string
	cmd := &cobra.Command{
		Use:   "trust NAME [--dir D] [--show] [--json]",
		Short: "Trust on this machine the options of [profiles.NAME] in agentproto.toml, and the files they name",
		Long: `Profile options name what the adapter runs (a binary, extra arguments, a
command line). From a tracked agentproto.toml they run only once trusted on
this machine: trust shows them with the files of the repository their words
name and records their digest. Any change needs trust again. A profile of
this clone's own profiles file is yours and needs none. --show prints
without trusting. The adapter's [plugins.NAME] options are trusted with
plugin trust.`,
		Args: cmdutil.ExactArgs(1, "one profile name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := f.App().TrustProfile(cmd.Context(), args[0], dir, show)
			if err != nil {
				return err
			}
			c, added := t.Options, t.Recorded
			if asJSON {
				return cmdutil.ExportJSON(cmd, f.IO.Out, map[string]any{"name": args[0], "adapter": t.Adapter, "options": c.Covered,
					"scripts": c.Scripts, "digest": c.Digest, "trusted": c.Trusted, "recorded": added})
			}
			if c.Empty() {
				fmt.Fprintf(f.IO.Out, "profile %s: no committed options to trust\n", args[0])
				return nil
			}
			fmt.Fprintf(f.IO.Out, "[profiles.%s] options (adapter %s):\n%s", args[0], t.Adapter, c.Describe())
			fmt.Fprintln(f.IO.Out, cmdutil.TrustVerdict(added, c.Trusted))
			return nil
		},
	}
	cmd.Flags().BoolVar(&show, "show", false, "only show what would be trusted and whether it is")
	cmd.Flags().StringVar(&dir, "dir", "", "hash the files the options name in this directory, where sessions will run (default: the repository)")
	cmdutil.AddJSONFlags(cmd, &asJSON, "print as JSON")
	return cmd
}

// PrintTable prints preflight results as a table, problems under each row.
// Kept by hand rather than go-gh's tableprinter: that one prints TSV when
// stdout is not a terminal and truncates cells to the terminal's width,
// while this table is the same on a pipe (where dispatch's preflight error
// is read) and has a problem line under a row, which TSV has no place for;
// the replacement was no shorter (21 lines either way).
func PrintTable(f *cmdutil.Factory, rs []profiles.Result) {
	rows := [][]string{{"PROFILE", "ADAPTER", "MODEL", "AUTH", "CHECKSUM", "KEY", "OK", "MODEL CHECK"}}
	for _, r := range rs {
		key := "yes"
		if !r.KeySet {
			key = "no"
		}
		ok := "yes"
		if !r.OK {
			ok = "NO"
		}
		rows = append(rows, []string{r.Name, r.Adapter, dash(r.Model), r.Auth, r.Checksum, key, ok, r.ModelOK})
	}
	lines := cmdutil.Align([]int{14, 12, 22, 13, 9, 5, 4}, rows)
	fmt.Fprintln(f.IO.Out, lines[0])
	for i, r := range rs {
		fmt.Fprintln(f.IO.Out, lines[i+1])
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
