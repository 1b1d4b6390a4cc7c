package root

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/cmd/ledger"
	"github.com/agentproto/agentproto/internal/testgit"
)

// readCommands must offer --json: supervisors script every read.
var readCommands = []string{
	"git-agentproto ledger log", "git-agentproto ledger show", "git-agentproto ledger verify",
	"git-agentproto config show", "git-agentproto config check", "git-agentproto sync",
}

func walk(c *cobra.Command, fn func(*cobra.Command)) {
	fn(c)
	for _, sub := range c.Commands() {
		walk(sub, fn)
	}
}

func TestEveryReadCommandHasJSON(t *testing.T) {
	io, _, _, _ := cmdutil.Test()
	root := NewCmdRoot(cmdutil.New(io, "test"))
	seen := map[string]bool{}
	walk(root, func(c *cobra.Command) {
		seen[c.CommandPath()] = true
		if c.Short == "" && c.Name() != "help" {
			t.Errorf("%s has no short help", c.CommandPath())
		}
	})
	for _, path := range readCommands {
		if !seen[path] {
			t.Errorf("%s does not exist", path)
			continue
		}
		c, _, err := root.Find(strings.Fields(path)[1:])
		if err != nil || c.Flags().Lookup("json") == nil {
			t.Errorf("%s has no --json", path)
		}
	}
}

func TestExitCodes(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	t.Chdir(dir)
	cases := []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"--version"}, 0, ""},
		{[]string{"nosuch"}, 2, "unknown command"},
		{[]string{"ledger", "log", "--bogus"}, 2, "unknown flag: --bogus"},
		{[]string{"ledger", "log", "--limit", "x"}, 2, "invalid argument"},
		{[]string{"ledger", "show"}, 2, "takes one record id"},
		{[]string{"ledger", "show", "missing"}, 2, "no such record: missing"},
		{[]string{"ledger", "append", "--kind", "note", "--id", "a", "--data", "{}", "--batch"}, 2, "cannot be used with it"},
		{[]string{"ledger", "append", "--kind", "task_done", "--id", "a", "--data", "{}"}, 5, "belongs to its own command"},
		{[]string{"ledger", "append", "--kind", "note", "--id", "a", "--data", "{}"}, 0, ""},
		{[]string{"ledger", "append", "--kind", "note", "--id", "a", "--data", `{"x":1}`}, 3, "other content"},
	}
	for _, c := range cases {
		io, _, out, errOut := cmdutil.Test()
		code := Main(c.args, io)
		if code != c.code || !strings.Contains(errOut.String(), c.err) {
			t.Errorf("%v: exit %d stderr %q stdout %q; want exit %d and %q", c.args, code, errOut, out, c.code, c.err)
		}
	}
}

func TestAppendFlagsReachOptions(t *testing.T) {
	io, _, _, _ := cmdutil.Test()
	f := cmdutil.New(io, "test")
	var got *struct{ kind, id, data string }
	cmd := NewCmdRoot(f)
	for _, c := range cmd.Commands() {
		if c.Name() != "ledger" {
			continue
		}
		for _, v := range c.Commands() {
			if v.Name() == "append" {
				c.RemoveCommand(v)
			}
		}
		c.AddCommand(newAppendCapture(f, func(kind, id, data string) {
			got = &struct{ kind, id, data string }{kind, id, data}
		}))
	}
	cmd.SetArgs([]string{"ledger", "append", "--kind", "note", "--id", "i1", "--data", `{"a":1}`})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got == nil || got.kind != "note" || got.id != "i1" || got.data != `{"a":1}` {
		t.Fatalf("options = %+v", got)
	}
}

func newAppendCapture(f *cmdutil.Factory, fn func(kind, id, data string)) *cobra.Command {
	return ledger.NewCmdAppend(f, func(o *ledger.AppendOptions) error {
		fn(o.Kind, o.ID, o.Data)
		return nil
	})
}
