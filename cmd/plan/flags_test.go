package plan

import (
	"testing"

	"github.com/agentproto/agentproto/cmd/cmdutil/cmdtest"
)

func TestInitAndNewWPFlags(t *testing.T) {
	o := cmdtest.Capture(t, NewCmdInit, "p1", "--base", "main", "--gate", "make test", "--json")
	if o.Project != "p1" || o.Base != "main" || o.Gate != "make test" || !o.JSON {
		t.Fatalf("init options %+v", o)
	}
	w := cmdtest.Capture(t, NewCmdNewWP, "p1", "WP2", "--title", "Parser")
	if w.Project != "p1" || w.WP != "WP2" || w.Title != "Parser" || w.JSON {
		t.Fatalf("new-wp options %+v", w)
	}
}

func TestProjectVerbsFlags(t *testing.T) {
	if o := cmdtest.Capture(t, NewCmdCheck, "p1", "--json"); o.Project != "p1" || !o.JSON {
		t.Fatalf("check options %+v", o)
	}
	if o := cmdtest.Capture(t, NewCmdFreeze, "p1"); o.Project != "p1" || o.JSON {
		t.Fatalf("freeze options %+v", o)
	}
	if o := cmdtest.Capture(t, NewCmdStatus, "p1", "--jq", ".frozen"); o.Project != "p1" || !o.JSON {
		t.Fatalf("status options %+v (--jq implies --json)", o)
	}
	if o := cmdtest.Capture(t, NewCmdShow, "p1", "--json"); o.Project != "p1" || !o.JSON {
		t.Fatalf("show options %+v", o)
	}
	if o := cmdtest.Capture(t, NewCmdRender, "p1", "WP1"); o.Project != "p1" || o.WP != "WP1" {
		t.Fatalf("render options %+v", o)
	}
}

func TestAmendAndAnswerFlags(t *testing.T) {
	o := cmdtest.Capture(t, NewCmdAmend, "p1", "--correction", "the port is 8080", "--recon")
	if o.Project != "p1" || o.Correction != "the port is 8080" || !o.Recon {
		t.Fatalf("amend options %+v", o)
	}
	a := cmdtest.Capture(t, NewCmdAnswer, "p1", "WP3", "--choice", "keep v1", "--json")
	if a.Project != "p1" || a.WP != "WP3" || a.Choice != "keep v1" || !a.JSON {
		t.Fatalf("answer options %+v", a)
	}
}

func TestOwnerTakesPaths(t *testing.T) {
	o := cmdtest.Capture(t, NewCmdOwner, "p1", "a.go", "b/c.go")
	if o.Project != "p1" || len(o.Paths) != 2 || o.Paths[1] != "b/c.go" {
		t.Fatalf("owner options %+v", o)
	}
	cmd := NewCmdOwner(cmdtest.Factory(), func(*OwnerOptions) error { t.Fatal("ran"); return nil })
	if err := cmdtest.Execute(cmd, "p1"); err == nil {
		t.Fatal("owner ran without a path")
	}
}

func TestRequiredFlagsAreRequired(t *testing.T) {
	amend := NewCmdAmend(cmdtest.Factory(), func(*AmendOptions) error { t.Fatal("ran"); return nil })
	if err := cmdtest.Execute(amend, "p1"); err == nil {
		t.Error("amend ran without --correction")
	}
	answer := NewCmdAnswer(cmdtest.Factory(), func(*AnswerOptions) error { t.Fatal("ran"); return nil })
	if err := cmdtest.Execute(answer, "p1", "WP1"); err == nil {
		t.Error("answer ran without --choice")
	}
}
