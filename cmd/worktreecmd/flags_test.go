package worktreecmd

import (
	"testing"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil/cmdtest"
)

func TestNewFlags(t *testing.T) {
	o := cmdtest.Capture(t, NewCmdNew, "wp1", "--base", "main", "--branch", "b1", "--no-setup", "--json")
	if o.Slug != "wp1" || o.Base != "main" || o.Branch != "b1" || !o.NoSetup || !o.JSON {
		t.Fatalf("options %+v", o)
	}
}

func TestLsAndGCFlags(t *testing.T) {
	if o := cmdtest.Capture(t, NewCmdLs, "--status", "--json"); !o.Status || !o.JSON {
		t.Fatalf("ls options %+v", o)
	}
	if o := cmdtest.Capture(t, NewCmdGC, "--apply"); !o.Apply || o.JSON {
		t.Fatalf("gc options %+v", o)
	}
}

func TestSlugVerbsFlags(t *testing.T) {
	if o := cmdtest.Capture(t, NewCmdChanges, "wp1", "--json"); o.Slug != "wp1" || !o.JSON {
		t.Fatalf("changes options %+v", o)
	}
	o := cmdtest.Capture(t, NewCmdRm, "wp1", "--discard-modified", "--discard-untracked")
	if o.Slug != "wp1" || !o.Discard.DiscardModified || !o.Discard.DiscardUntracked {
		t.Fatalf("rm options %+v", o)
	}
	if o := cmdtest.Capture(t, NewCmdArchive, "wp2"); o.Slug != "wp2" {
		t.Fatalf("archive options %+v", o)
	}
	if o := cmdtest.Capture(t, NewCmdRestore, "wp3", "--json"); o.Slug != "wp3" || !o.JSON {
		t.Fatalf("restore options %+v", o)
	}
}

func TestTrustFlags(t *testing.T) {
	o := cmdtest.Capture(t, newCmdTrust, "--base", "v1", "--show", "--json")
	if o.Base != "v1" || !o.Show || !o.JSON {
		t.Fatalf("trust options %+v", o)
	}
}

func TestSlugVerbsTakeOneSlug(t *testing.T) {
	for _, newCmd := range []func() *cobra.Command{
		func() *cobra.Command {
			return NewCmdRm(cmdtest.Factory(), func(*RmOptions) error { t.Fatal("ran"); return nil })
		},
		func() *cobra.Command {
			return NewCmdChanges(cmdtest.Factory(), func(*ChangesOptions) error { t.Fatal("ran"); return nil })
		},
	} {
		if err := cmdtest.Execute(newCmd()); err == nil {
			t.Errorf("%s ran without a slug", newCmd().Name())
		}
	}
}
