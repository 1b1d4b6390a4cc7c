package plan

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

func TestInitAndNewWPFlags(t *testing.T) {
	o := capture(t, NewCmdInit, "p1", "--base", "main", "--gate", "make test", "--json")
	if o.Project != "p1" || o.Base != "main" || o.Gate != "make test" || !o.JSON {
		t.Fatalf("init options %+v", o)
	}
	w := capture(t, NewCmdNewWP, "p1", "WP2", "--title", "Parser")
	if w.Project != "p1" || w.WP != "WP2" || w.Title != "Parser" || w.JSON {
		t.Fatalf("new-wp options %+v", w)
	}
}

func TestProjectVerbsFlags(t *testing.T) {
	if o := capture(t, NewCmdCheck, "p1", "--json"); o.Project != "p1" || !o.JSON {
		t.Fatalf("check options %+v", o)
	}
	if o := capture(t, NewCmdFreeze, "p1"); o.Project != "p1" || o.JSON {
		t.Fatalf("freeze options %+v", o)
	}
	if o := capture(t, NewCmdStatus, "p1", "--jq", ".frozen"); o.Project != "p1" || !o.JSON {
		t.Fatalf("status options %+v (--jq implies --json)", o)
	}
	if o := capture(t, NewCmdShow, "p1", "--json"); o.Project != "p1" || !o.JSON {
		t.Fatalf("show options %+v", o)
	}
	if o := capture(t, NewCmdRender, "p1", "WP1"); o.Project != "p1" || o.WP != "WP1" {
		t.Fatalf("render options %+v", o)
	}
}

func TestAmendAndAnswerFlags(t *testing.T) {
	o := capture(t, NewCmdAmend, "p1", "--correction", "the port is 8080", "--recon")
	if o.Project != "p1" || o.Correction != "the port is 8080" || !o.Recon {
		t.Fatalf("amend options %+v", o)
	}
	a := capture(t, NewCmdAnswer, "p1", "WP3", "--choice", "keep v1", "--json")
	if a.Project != "p1" || a.WP != "WP3" || a.Choice != "keep v1" || !a.JSON {
		t.Fatalf("answer options %+v", a)
	}
}

func TestOwnerTakesPaths(t *testing.T) {
	o := capture(t, NewCmdOwner, "p1", "a.go", "b/c.go")
	if o.Project != "p1" || len(o.Paths) != 2 || o.Paths[1] != "b/c.go" {
		t.Fatalf("owner options %+v", o)
	}
	cmd := NewCmdOwner(testFactory(), func(*OwnerOptions) error { t.Fatal("ran"); return nil })
	if err := execute(cmd, "p1"); err == nil {
		t.Fatal("owner ran without a path")
	}
}

func TestRequiredFlagsAreRequired(t *testing.T) {
	amend := NewCmdAmend(testFactory(), func(*AmendOptions) error { t.Fatal("ran"); return nil })
	if err := execute(amend, "p1"); err == nil {
		t.Error("amend ran without --correction")
	}
	answer := NewCmdAnswer(testFactory(), func(*AnswerOptions) error { t.Fatal("ran"); return nil })
	if err := execute(answer, "p1", "WP1"); err == nil {
		t.Error("answer ran without --choice")
	}
}
