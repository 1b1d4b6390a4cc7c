package root

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/cmd/cmdutil"
)

// Each part names exactly the top-level commands it builds, so that a
// command line naming one is run on the part that has it, and no two
// parts name the same command.
func TestPartsNameTheirCommands(t *testing.T) {
	io, _, _, _ := cmdutil.Test()
	f := cmdutil.New(io, "test")
	owner := map[string]int{}
	for i, p := range parts {
		var built []string
		for _, c := range p.build(f) {
			built = append(built, c.Name())
			built = append(built, c.Aliases...)
		}
		names := slices.Clone(p.names)
		slices.Sort(built)
		slices.Sort(names)
		if !slices.Equal(built, names) {
			t.Errorf("part %d names %v but builds %v", i, names, built)
		}
		for _, n := range names {
			if j, dup := owner[n]; dup {
				t.Errorf("%s is named by parts %d and %d", n, j, i)
			}
			owner[n] = i
		}
	}
	whole := NewCmdRoot(f)
	for _, c := range whole.Commands() {
		if _, ok := owner[c.Name()]; !ok && c.Name() != "completion" && c.Name() != "help" {
			t.Errorf("%s is in the tree but in no part", c.Name())
		}
	}
}

// A named command runs on its part alone; anything else sees the whole
// tree (help lists every command, an unknown word gets suggestions).
func TestACommandLineBuildsOnlyItsPart(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string // commands under root, "all" for the whole tree
	}{
		{[]string{"checkpoint", "p", "WP0"}, []string{"checkpoint", "consolidate", "dispatch", "e2e", "pr", "review", "run", "verify", "waiting"}},
		{[]string{"ledger", "log"}, []string{"ledger"}},
		{[]string{"todo", "add"}, []string{"evidence", "goal", "peer", "supervisor", "todo"}},
		{nil, []string{"all"}},
		{[]string{"--version"}, nil},
		{[]string{"--version", "ledger"}, []string{"all"}},
		{[]string{"--help"}, []string{"all"}},
		{[]string{"help", "ledger"}, []string{"all"}},
		{[]string{"completion", "bash"}, []string{"all"}},
		{[]string{"__complete", "led"}, []string{"all"}},
		{[]string{"ledgr"}, []string{"all"}},
	} {
		var got []string
		for _, p := range partsFor(c.args) {
			got = append(got, p.names...)
		}
		slices.Sort(got)
		if len(c.want) > 0 && c.want[0] == "all" {
			if len(partsFor(c.args)) != len(parts) {
				t.Errorf("%v: built %v, want the whole tree", c.args, got)
			}
			continue
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%v: built %v, want %v", c.args, got, c.want)
		}
	}
	io, _, out, errOut := cmdutil.Test()
	if code := Main([]string{"ledgr"}, io); code != 2 || !strings.Contains(errOut.String(), "ledger") {
		t.Errorf("a misspelt command: exit %d, stderr %q stdout %q; want exit 2 and the suggestion", code, errOut, out)
	}
	io, _, out, _ = cmdutil.Test()
	if code := Main([]string{"--version"}, io); code != 0 || out.String() != "git-agentproto version "+Version()+"\n" {
		t.Errorf("--version: exit %d, stdout %q", code, out)
	}
	io, _, out, _ = cmdutil.Test()
	if code := Main([]string{"--help"}, io); code != 0 || !strings.Contains(out.String(), "dispatch") || !strings.Contains(out.String(), "ledger") {
		t.Errorf("--help: exit %d, stdout %q; want every command listed", code, out)
	}
}
