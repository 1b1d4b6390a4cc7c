// Package initcmd wires `git agentproto init`.
package initcmd

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/gitrepo"
)

// Options are the inputs of `init`.
type Options struct {
	IO   *cmdutil.IOStreams
	Repo func() (*gitrepo.Repo, error)

	Remote string
	JSON   bool
	Export *cmdutil.Exporter
}

// NewCmdInit returns `init`.
func NewCmdInit(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: f.IO, Repo: f.Repo}
	cmd := &cobra.Command{
		Use:   "init [--remote NAME]",
		Short: "Prepare this clone for agentproto (idempotent)",
		Long: `Prepare this clone, changing only what is missing:
  - create this clone's ledger writer id (kept in the common git dir);
  - add a non-forcing fetch refspec for refs/agentproto/* to the remote
    (origin by default) if it exists; never a push refspec;
  - write a commented agentproto.toml if the repository has none;
  - keep .plans/ out of commits (info/exclude).`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return initRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Remote, "remote", "origin", "remote that gets the ledger fetch refspec")
	opts.Export = cmdutil.AddJSONFlags(cmd, &opts.JSON, "print what changed as JSON")
	return cmd
}

// excludeLine keeps plan working files out of commits on every branch.
const excludeLine = "/.plans/"

func initRun(o *Options) error {
	repo, err := o.Repo()
	if err != nil {
		return err
	}
	var changed []string
	writer, created, err := gitstore.EnsureWriterID(repo.CommonDir)
	if err != nil {
		return err
	}
	if created {
		changed = append(changed, "created writer id "+writer)
	}
	if _, err := repo.Git("remote", "get-url", o.Remote); err == nil {
		added, err := gitstore.EnsureFetchRefspecs(repo, o.Remote, writer)
		if err != nil {
			return err
		}
		for _, s := range added {
			changed = append(changed, fmt.Sprintf("added fetch refspec %s to remote %s", s, o.Remote))
		}
	}
	if repo.WorkTree != "" {
		path := filepath.Join(repo.WorkTree, config.FileName)
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			if err := os.WriteFile(path, []byte(config.Template), 0o644); err != nil {
				return err
			}
			changed = append(changed, "wrote "+config.FileName)
		}
	}
	if ok, err := ensureExcluded(repo.Path("info", "exclude")); err != nil {
		return err
	} else if ok {
		changed = append(changed, "excluded "+excludeLine+" in info/exclude")
	}
	if o.JSON {
		return o.Export.Write(o.IO.Out, map[string]any{"writer": writer, "changed": nonNil(changed)})
	}
	if len(changed) == 0 {
		fmt.Fprintf(o.IO.Out, "already initialised (writer %s)\n", writer)
	}
	for _, c := range changed {
		fmt.Fprintln(o.IO.Out, c)
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// ensureExcluded appends the .plans/ line to info/exclude unless present.
func ensureExcluded(path string) (bool, error) {
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	for _, l := range bytes.Split(b, []byte("\n")) {
		if string(bytes.TrimSpace(l)) == excludeLine {
			return false, nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		b = append(b, '\n')
	}
	b = append(b, "# agentproto plan working files\n"+excludeLine+"\n"...)
	return true, os.WriteFile(path, b, 0o644)
}
