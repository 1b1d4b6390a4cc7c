// Package plugincmd wires `plugin ls`, `plugin describe`, `plugin pin` and
// `plugin trust`.
package plugincmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/plugins/catalog"
)

// NewCmdPlugin returns the `plugin` command.
func NewCmdPlugin(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plugin <command>",
		Short: "List, describe, pin and trust executor adapter plugins",
		Long: `Adapters are plugin binaries: [plugins.NAME] path in agentproto.toml, or
agentproto-adapter-NAME on PATH. A binary named by agentproto.toml comes with
the repository, so it runs only once its bytes are trusted on this machine
(plugin trust NAME); any change to it needs trust again. A pinned sha256 is
checked on every launch; a changed binary is refused (exit 5).`,
	}
	cmd.AddCommand(newCmdLs(f), newCmdDescribe(f), newCmdPin(f), newCmdTrust(f))
	return cmd
}

func newCmdLs(f *cmdutil.Factory) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "ls [--json]",
		Short: "List the adapters agentproto can find",
		Args:  cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			rows, err := f.App().Plugins(context.Background())
			if err != nil {
				return err
			}
			if asJSON {
				return cmdutil.ExportJSON(cmd, f.IO.Out, rows)
			}
			for _, r := range rows {
				trust := "trusted"
				if !r.Trusted {
					trust = "untrusted"
				}
				fmt.Fprintf(f.IO.Out, "%-14s %-9s %-9s %-7s %s\n", r.Name, r.Checksum, trust, r.Source, r.Path)
			}
			return nil
		},
	}
	cmdutil.AddJSONFlags(cmd, &asJSON, "print as JSON")
	return cmd
}

func newCmdDescribe(f *cmdutil.Factory) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "describe NAME [--json]",
		Short: "Launch an adapter and print what it declares: version, capabilities, models",
		Args:  cmdutil.ExactArgs(1, "one adapter name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			fd, info, err := f.App().DescribePlugin(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return cmdutil.ExportJSON(cmd, f.IO.Out, map[string]any{"name": info.Name, "version": info.Version, "capabilities": info.Capabilities,
					"models": info.Models, "auth_methods": info.AuthMethods, "path": fd.Path})
			}
			fmt.Fprintf(f.IO.Out, "name:         %s\nversion:      %s\npath:         %s\ncapabilities: %s\nmodels:       %s\nauth:         %s\n",
				info.Name, info.Version, fd.Path, strings.Join(info.Capabilities, ", "), strings.Join(info.Models, ", "), strings.Join(info.AuthMethods, ", "))
			return nil
		},
	}
	cmdutil.AddJSONFlags(cmd, &asJSON, "print as JSON")
	return cmd
}

func newCmdPin(f *cmdutil.Factory) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "pin NAME [--json]",
		Short: "Record the adapter binary's sha256 in agentproto.toml ([plugins.NAME] sha256)",
		Args:  cmdutil.ExactArgs(1, "one adapter name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			sum, err := f.App().PinPlugin(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return cmdutil.ExportJSON(cmd, f.IO.Out, map[string]any{"name": args[0], "sha256": sum, "file": config.FileName})
			}
			fmt.Fprintf(f.IO.Out, "pinned %s to sha256 %s in %s\n", args[0], sum, config.FileName)
			return nil
		},
	}
	cmdutil.AddJSONFlags(cmd, &asJSON, `print {"name","sha256","file"} as JSON`)
	return cmd
}

func newCmdTrust(f *cmdutil.Factory) *cobra.Command {
	var show, asJSON bool
	var dir string
	cmd := &cobra.Command{
		Use:   "trust NAME [--dir D] [--show] [--json]",
		Short: "Trust on this machine what agentproto.toml makes adapter NAME run: its binary ([plugins.NAME] path) and options",
		Long: `A [plugins.NAME] path in agentproto.toml names a binary that came with the
repository, and [plugins.NAME] options name what the adapter runs (the exec
adapter's command, claude-code's binary and extra...). trust shows the binary
with its sha256, the options and the files of the repository their words
name, and records them as trusted on this machine; sessions start, dispatch
and plugin describe run them only then. Any change to the binary, an option
or a file they name needs trust again. Adapters found on PATH, and options
of an untracked agentproto.toml, are your own and need no trust. --show
prints without trusting.`,
		Args: cmdutil.ExactArgs(1, "one adapter name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := f.App().TrustPlugin(cmd.Context(), args[0], dir, show)
			if err != nil {
				return err
			}
			fd, opts := t.Found, t.Options
			if asJSON {
				return cmdutil.ExportJSON(cmd, f.IO.Out, map[string]any{"name": fd.Name, "path": fd.Path, "source": fd.Source,
					"sha256": fd.Digest, "trusted": fd.Trusted, "recorded": t.Recorded,
					"options": opts.Covered, "scripts": opts.Scripts, "options_digest": opts.Digest,
					"options_trusted": opts.Trusted, "options_recorded": t.OptionsRecorded})
			}
			if fd.Source != catalog.SourceConfig {
				fmt.Fprintf(f.IO.Out, "%s is %s, found on PATH: your own installation needs no trust\n", fd.Name, fd.Path)
			} else {
				fmt.Fprintf(f.IO.Out, "adapter %s: %s (from %s)\nsha256 %s\n", fd.Name, fd.Path, config.FileName, fd.Digest)
				fmt.Fprintln(f.IO.Out, cmdutil.TrustVerdict(t.Recorded, fd.Trusted))
			}
			if !opts.Empty() {
				fmt.Fprintf(f.IO.Out, "[plugins.%s] options (from %s):\n%s", fd.Name, config.FileName, opts.Describe())
				fmt.Fprintln(f.IO.Out, cmdutil.TrustVerdict(t.OptionsRecorded, opts.Trusted))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&show, "show", false, "only show what would be trusted and whether it is")
	cmd.Flags().StringVar(&dir, "dir", "", "hash the files the options name in this directory, where sessions will run (default: the repository)")
	cmdutil.AddJSONFlags(cmd, &asJSON, "print as JSON")
	return cmd
}
