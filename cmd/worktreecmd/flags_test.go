package worktreecmd

import (
	"testing"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
)

func testFactory() *cmdutil.Factory {
	io, _, _, _ := cmdutil.Test()
	return &cmdutil.Factory{IO: io}
}

func execute(cmd *cobra.Command, args ...string) error {
	cmd.SetArgs(args)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	return cmd.Execute()
}

// capture builds a verb with a runF that keeps its options: the flags
// land where the run reads them, and nothing is loaded before it.
func capture[O any](t *testing.T, newCmd func(*cmdutil.Factory, func(*O) error) *cobra.Command, args ...string) *O {
	t.Helper()
	var got *O
	if err := execute(newCmd(testFactory(), func(o *O) error { got = o; return nil }), args...); err != nil {
		t.Fatal(err)
	}
	if got == nil {
		t.Fatal("runF was not called")
	}
	return got
}

func TestNewFlags(t *testing.T) {
	o := capture(t, NewCmdNew, "wp1", "--base", "main", "--branch", "b1", "--no-setup", "--json")
	if o.Slug != "wp1" || o.Base != "main" || o.Branch != "b1" || !o.NoSetup || !o.JSON {
		t.Fatalf("options %+v", o)
	}
}

func TestLsAndGCFlags(t *testing.T) {
	if o := capture(t, NewCmdLs, "--status", "--json"); !o.Status || !o.JSON {
		t.Fatalf("ls options %+v", o)
	}
	if o := capture(t, NewCmdGC, "--apply"); !o.Apply || o.JSON {
		t.Fatalf("gc options %+v", o)
	}
}

func TestSlugVerbsFlags(t *testing.T) {
	if o := capture(t, NewCmdChanges, "wp1", "--json"); o.Slug != "wp1" || !o.JSON {
		t.Fatalf("changes options %+v", o)
	}
	o := capture(t, NewCmdRm, "wp1", "--discard-modified", "--discard-untracked")
	if o.Slug != "wp1" || !o.Discard.DiscardModified || !o.Discard.DiscardUntracked {
		t.Fatalf("rm options %+v", o)
	}
	if o := capture(t, NewCmdArchive, "wp2"); o.Slug != "wp2" {
		t.Fatalf("archive options %+v", o)
	}
	if o := capture(t, NewCmdRestore, "wp3", "--json"); o.Slug != "wp3" || !o.JSON {
		t.Fatalf("restore options %+v", o)
	}
}

func TestTrustFlags(t *testing.T) {
	o := capture(t, newCmdTrust, "--base", "v1", "--show", "--json")
	if o.Base != "v1" || !o.Show || !o.JSON {
		t.Fatalf("trust options %+v", o)
	}
}

func TestSlugVerbsTakeOneSlug(t *testing.T) {
	for _, newCmd := range []func() *cobra.Command{
		func() *cobra.Command {
			return NewCmdRm(testFactory(), func(*RmOptions) error { t.Fatal("ran"); return nil })
		},
		func() *cobra.Command {
			return NewCmdChanges(testFactory(), func(*ChangesOptions) error { t.Fatal("ran"); return nil })
		},
	} {
		if err := execute(newCmd()); err == nil {
			t.Errorf("%s ran without a slug", newCmd().Name())
		}
	}
}
