package pipelinecmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/app"
	"github.com/agentproto/agentproto/cmd/cmdutil"
)

// ConsolidateOptions are the inputs of `consolidate`.
type ConsolidateOptions struct {
	deps
	Project string
	DryRun  bool
	Renames []string
	// Checkpoint commits the verified WPs without a checkpoint first.
	Checkpoint bool
	JSON       bool
	Export     *cmdutil.Exporter
}

// NewCmdConsolidate returns `consolidate`.
func NewCmdConsolidate(f *cmdutil.Factory, runF func(*ConsolidateOptions) error) *cobra.Command {
	opts := &ConsolidateOptions{deps: newDeps(f)}
	cmd := &cobra.Command{
		Use:   "consolidate PROJECT [--checkpoint] [--dry-run] [--rename WPn:OLD=NEW]... [--json]",
		Short: "Single writer: merge the verified WP branches, apply shared-file wiring, run the gate",
		Long: `Merge the verified WP branches into the integration worktree in dependency
order, add the wiring lines the reports list to shared plain-text files, merge
the reports' snippets into shared JSON, TOML and YAML files key by key, and run
the gate. Each merged config file's diff is printed (and given in --json); the
merged files are committed on the integration branch.

Two work packages setting one key to different values (or one removing what
the other sets) is a collision: consolidate names both and the key, proposes a
rename, and stops before writing anything. Pick one with --rename WPn:OLD=NEW
(repeatable; OLD and NEW are dotted key paths, a key holding a dot or an = in
double quotes), e.g. --rename WP2:scripts.test=scripts.test:e2e, and run it
again. The same value set by both is no collision. The renames are recorded
with the consolidation and stand for later runs given none.

Wiring names shared files inside the repository only and is never written
through a symlink. --dry-run lists what would be merged and wired, with the
diff of each config file, and the findings that would stop it, and writes
nothing at all. --checkpoint first checkpoints every work package whose
latest verification passed and that has no checkpoint yet (the last wave,
which no later dispatch checkpoints), as run does.`,
		Args: cmdutil.ExactArgs(1, "one plan name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Project = args[0]
			if runF != nil {
				return runF(opts)
			}
			return consolidateRun(opts)
		},
	}
	opts.Export = cmdutil.AddJSONFlags(cmd, &opts.JSON, "print the result as JSON")
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "say what would be merged and wired; write nothing")
	cmd.Flags().BoolVar(&opts.Checkpoint, "checkpoint", false, "first checkpoint the verified work packages that have no checkpoint")
	cmd.Flags().StringArrayVar(&opts.Renames, "rename", nil, "move the config key OLD a work package adds to NEW: `WPn:OLD=NEW` (repeatable)")
	return cmd
}

func consolidateRun(o *ConsolidateOptions) error {
	c, err := o.App.Consolidate(context.Background(), app.ConsolidateOptions{Project: o.Project, DryRun: o.DryRun, Renames: o.Renames, Checkpoint: o.Checkpoint})
	if c == nil {
		return err
	}
	if o.JSON {
		o.Export.Write(o.IO.Out, c)
		return err
	}
	out := o.IO.Out
	if len(c.Checkpointed) > 0 {
		fmt.Fprintf(out, "checkpointed %s first\n", strings.Join(c.Checkpointed, ", "))
	}
	if c.Branch != "" {
		fmt.Fprintf(out, "integration worktree %s (%s)\n", c.Worktree, c.Branch)
	}
	for _, w := range c.Wiring {
		fmt.Fprintf(out, "  wiring %s %s: %s (%s)\n", w.WP, w.File, w.Line, w.Status)
	}
	for _, m := range c.Config {
		fmt.Fprintf(out, "  config %s: %d keys merged (%s)\n", m.File, len(m.Changes), m.Status)
		if m.Whole {
			fmt.Fprintf(out, "  warning %s was written whole: its comments and layout are not kept\n", m.File)
		}
		out.Write([]byte(indentLines(m.Diff, "    ")))
	}
	printFindings(out, c.Findings)
	if c.DryRun {
		fmt.Fprintf(out, "  would merge %s; dry run: nothing written\n", strings.Join(c.WouldMerge, ", "))
	}
	if c.Gate != nil {
		fmt.Fprintf(out, "  merged %s; gate %q: exit %d\n", strings.Join(c.Merged, ", "), c.Gate.Command, c.Gate.ExitCode)
	}
	return err
}

func indentLines(text, prefix string) string {
	if text == "" {
		return ""
	}
	return prefix + strings.ReplaceAll(strings.TrimSuffix(text, "\n"), "\n", "\n"+prefix) + "\n"
}
