// Package configcmd wires `config check` and `config show`.
package configcmd

import (
	"fmt"

	"github.com/BurntSushi/toml"
	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/internal/config"
)

// NewCmdConfig returns the `config` command.
func NewCmdConfig(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config <command>",
		Short: "Validate and show agentproto.toml",
	}
	cmd.AddCommand(newCmdCheck(f))
	cmd.AddCommand(newCmdShow(f))
	return cmd
}

func newCmdCheck(f *cmdutil.Factory) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "check [--json]",
		Short: "Validate agentproto.toml: unknown keys, wrong types and bad values are errors",
		Args:  cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, src, err := f.Config()
			if err != nil {
				return err
			}
			if asJSON {
				return cmdutil.ExportJSON(cmd, f.IO.Out, map[string]any{"ok": true, "source": src})
			}
			if !src.Exists {
				fmt.Fprintf(f.IO.Out, "no %s here; built-in defaults apply\n", config.FileName)
				return nil
			}
			fmt.Fprintf(f.IO.Out, "%s: ok\n", src.Path)
			return nil
		},
	}
	cmdutil.AddJSONFlags(cmd, &asJSON, "print the result as JSON")
	return cmd
}

func newCmdShow(f *cmdutil.Factory) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show [--json]",
		Short: "Print the effective configuration, defaults included",
		Args:  cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, src, err := f.Config()
			if err != nil {
				return err
			}
			if asJSON {
				return cmdutil.ExportJSON(cmd, f.IO.Out, map[string]any{"source": src, "config": cfg})
			}
			return toml.NewEncoder(f.IO.Out).Encode(cfg)
		},
	}
	cmdutil.AddJSONFlags(cmd, &asJSON, "print the configuration as JSON")
	return cmd
}
