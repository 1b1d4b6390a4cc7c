package root

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
)

// addDynamicCompletion completes arguments and flags from what the
// repository holds, reading each command's usage line: PROJECT is a plan,
// WPn one of its work packages, SLUG a worktree, ID under `sessions` a
// session, NAME under `profile` a profile. The usage line is the one
// place that already names each argument, so a new verb gets completion by
// naming its arguments the same way.
func addDynamicCompletion(c *cobra.Command, f *cmdutil.Factory) {
	for _, sub := range c.Commands() {
		addDynamicCompletion(sub, f)
	}
	if c.Runnable() && c.ValidArgsFunction == nil && len(c.ValidArgs) == 0 {
		if slots := argSlots(c.Use); len(slots) > 0 {
			c.ValidArgsFunction = func(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
				i := len(args)
				if i >= len(slots) {
					if !strings.HasSuffix(slots[len(slots)-1], "...") {
						return nil, cobra.ShellCompDirectiveNoFileComp
					}
					i = len(slots) - 1
				}
				return candidates(f, cmd, strings.TrimSuffix(slots[i], "..."), args)
			}
		}
	}
	flagKinds := map[string]string{"worktree": "SLUG", "profile": "PROFILE", "wp": "WPn"}
	for flag, kind := range flagKinds {
		if c.Flags().Lookup(flag) == nil {
			continue
		}
		c.RegisterFlagCompletionFunc(flag, func(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			return candidates(f, cmd, kind, args)
		})
	}
}

// argSlots returns the positional placeholders of a usage line: the words
// after the command name up to the first flag or alternative, brackets
// dropped, "..." kept to mark the last as repeatable.
func argSlots(use string) []string {
	var slots []string
	fields := strings.Fields(use)
	if len(fields) < 2 {
		return nil
	}
	for _, w := range fields[1:] {
		w = strings.Trim(w, "[]")
		if w == "" || strings.HasPrefix(w, "-") || strings.HasPrefix(w, "(") || strings.ContainsAny(w, "|") {
			break
		}
		slots = append(slots, w)
	}
	return slots
}

func candidates(f *cmdutil.Factory, cmd *cobra.Command, kind string, args []string) ([]string, cobra.ShellCompDirective) {
	group := ""
	if cmd.HasParent() {
		group = cmd.Parent().Name()
	}
	var out []string
	a, ctx := f.App(), cmd.Context()
	switch {
	case kind == "PROJECT":
		out = a.PlanNames(ctx)
	case kind == "WPn" && len(args) > 0:
		out = a.WPNames(ctx, args[0])
	case kind == "SLUG":
		out = a.WorktreeNames(ctx)
	case kind == "ID" && group == "sessions":
		out = a.SessionNames(ctx)
	case kind == "PROFILE" || kind == "NAME" && group == "profile":
		out = a.ProfileNames(ctx)
	default:
		return nil, cobra.ShellCompDirectiveDefault
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
