package pipelinecmd

import (
	"reflect"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/cmd/cmdutil/cmdtest"
	"github.com/agentproto/agentproto/internal/fault"
)

// The flags land in the Options the verb runs with; nothing is loaded
// before runF.
func TestDispatchFlags(t *testing.T) {
	var got *DispatchOptions
	cmd := NewCmdDispatch(cmdtest.Factory(), func(o *DispatchOptions) error { got = o; return nil })
	if err := cmdtest.Execute(cmd, "demo", "--wp", "WP1", "--wp", "WP2", "--max-parallel", "3", "--no-wait", "--no-ping", "--timeout", "90s", "--json"); err != nil {
		t.Fatal(err)
	}
	if got.Project != "demo" || !reflect.DeepEqual(got.WPs, []string{"WP1", "WP2"}) || got.MaxParallel != 3 || !got.NoWait || !got.NoPing ||
		got.Timeout != "90s" || !got.JSON {
		t.Fatalf("options = %+v", got)
	}
}

func TestDispatchRefusesATimeoutWithoutAUnit(t *testing.T) {
	for _, v := range []string{"40", "0s", "-1m", "soon"} {
		ran := false
		err := cmdtest.Execute(NewCmdDispatch(cmdtest.Factory(), func(*DispatchOptions) error { ran = true; return nil }), "demo", "--timeout", v)
		if ran || err == nil || !strings.Contains(err.Error(), "needs a unit") || fault.KindOf(err) != fault.Invalid {
			t.Fatalf("--timeout %s: ran %v, err %v", v, ran, err)
		}
	}
}

func TestRunAndPRFlags(t *testing.T) {
	var run *RunOptions
	if err := cmdtest.Execute(NewCmdRun(cmdtest.Factory(), func(o *RunOptions) error { run = o; return nil }), "demo", "--max-parallel", "2", "--dry-run"); err != nil {
		t.Fatal(err)
	}
	if run.Project != "demo" || run.MaxParallel != 2 || !run.DryRun || run.OpenPR {
		t.Fatalf("run options = %+v", run)
	}
	var pr *PROpenOptions
	if err := cmdtest.Execute(NewCmdPROpen(cmdtest.Factory(), func(o *PROpenOptions) error { pr = o; return nil }), "demo", "--draft", "--base", "dev", "--title", "T"); err != nil {
		t.Fatal(err)
	}
	if pr.Project != "demo" || !pr.Draft || pr.Base != "dev" || pr.Title != "T" || pr.DryRun {
		t.Fatalf("pr options = %+v", pr)
	}
}

// review takes a plan or one change, never both, and a change needs --base;
// --branch (CI) names its plan through the ledger and needs no --base.
func TestReviewModes(t *testing.T) {
	cases := []struct {
		args []string
		want string // "" for accepted
	}{
		{[]string{"demo"}, ""},
		{[]string{"demo", "--adapter", "exec"}, ""},
		{[]string{"--base", "HEAD~1", "--gate", "make test", "--own", "lib/*"}, ""},
		{[]string{"demo", "--base", "HEAD~1"}, "not both"},
		{[]string{"--base", "HEAD~1", "--adapter", "exec"}, "not both"},
		{[]string{"--head", "HEAD"}, "--base is needed"},
		{nil, "needs one plan name"},
		{[]string{"--branch", "wt/demo-integration", "--head", "abc"}, ""},
		{[]string{"--branch", "wt/demo-wp1", "--base", "main", "--gate", "make test"}, ""},
		{[]string{"demo", "--branch", "wt/demo-wp1"}, "the branch names its plan"},
		{[]string{"--branch", "wt/demo-wp1", "--profile", "p"}, "the branch names its plan"},
	}
	for _, c := range cases {
		var got *ReviewOptions
		err := cmdtest.Execute(NewCmdReview(cmdtest.Factory(), func(o *ReviewOptions) error { got = o; return nil }), c.args...)
		if c.want == "" {
			if err != nil || got == nil {
				t.Errorf("%v: %v", c.args, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || got != nil {
			t.Errorf("%v: err %v, want %q (ran: %v)", c.args, err, c.want, got != nil)
		}
	}
	var got *ReviewOptions
	cmdtest.Execute(NewCmdReview(cmdtest.Factory(), func(o *ReviewOptions) error { got = o; return nil }), "--base", "b", "--mutation-budget", "5s")
	if got.Base != "b" || got.MutationBudget.String() != "5s" {
		t.Fatalf("options = %+v", got)
	}
}

func TestConsolidateFlags(t *testing.T) {
	var got *ConsolidateOptions
	cmd := NewCmdConsolidate(cmdtest.Factory(), func(o *ConsolidateOptions) error { got = o; return nil })
	if err := cmdtest.Execute(cmd, "demo", "--checkpoint", "--rename", "WP2:a=b", "--json"); err != nil {
		t.Fatal(err)
	}
	if got.Project != "demo" || !got.Checkpoint || got.DryRun || !reflect.DeepEqual(got.Renames, []string{"WP2:a=b"}) || !got.JSON {
		t.Fatalf("options = %+v", got)
	}
}

// pr watch --daemon hands the loop over, so it takes no bound of polls;
// pr answer needs the item and a choice.
func TestPRWatchAndAnswerFlags(t *testing.T) {
	var w *PRWatchOptions
	if err := cmdtest.Execute(NewCmdPRWatch(cmdtest.Factory(), func(o *PRWatchOptions) error { w = o; return nil }), "demo", "--daemon", "--interval", "2m", "--json"); err != nil {
		t.Fatal(err)
	}
	if w.Project != "demo" || !w.Daemon || w.Interval.String() != "2m0s" || !w.JSON || w.Once {
		t.Fatalf("pr watch options = %+v", w)
	}
	for _, extra := range []string{"--once", "--polls=3"} {
		ran := false
		err := cmdtest.Execute(NewCmdPRWatch(cmdtest.Factory(), func(*PRWatchOptions) error { ran = true; return nil }), "demo", "--daemon", extra)
		if ran || fault.KindOf(err) != fault.Invalid {
			t.Fatalf("--daemon %s: ran %v, err %v", extra, ran, err)
		}
	}
	var a *PRAnswerOptions
	if err := cmdtest.Execute(NewCmdPRAnswer(cmdtest.Factory(), func(o *PRAnswerOptions) error { a = o; return nil }), "demo", "comment:102", "--choice", "WP1", "--note", "WP1 keeps it"); err != nil {
		t.Fatal(err)
	}
	if a.Project != "demo" || a.Item != "comment:102" || a.Choice != "WP1" || a.Note != "WP1 keeps it" {
		t.Fatalf("pr answer options = %+v", a)
	}
	if err := cmdtest.Execute(NewCmdPRAnswer(cmdtest.Factory(), func(*PRAnswerOptions) error { t.Fatal("ran without --choice"); return nil }), "demo", "check:test"); err == nil {
		t.Fatal("pr answer without --choice")
	}
}
