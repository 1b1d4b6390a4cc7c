package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentproto/agentproto/cmd/cmdutil"
	"github.com/agentproto/agentproto/cmd/root"
)

const gitCompletion = "/usr/share/bash-completion/completions/git"

// complete runs git's own bash completion, with git-agentproto's script
// sourced, for line as typed and returns COMPREPLY, one word per line.
func complete(t *testing.T, dir, line string) string {
	t.Helper()
	if _, err := os.Stat(gitCompletion); err != nil {
		t.Skipf("git's bash completion is not installed: %v", err)
	}
	script := `source ` + gitCompletion + ` || exit 9
source <(git-agentproto completion bash) || exit 9
COMP_LINE="$1"
read -r -a COMP_WORDS <<< "$COMP_LINE"
[[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$((${#COMP_WORDS[@]}-1))
COMP_POINT=${#COMP_LINE}
__git_wrap__git_main 2>/dev/null
printf '%s\n' "${COMPREPLY[@]}"`
	out, errOut, err := sh(t, dir, nil, "bash", "-c", script, "bash", line)
	if err != nil {
		t.Fatalf("completing %q: %v\n%s", line, err, errOut)
	}
	return out
}

func words(out string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(out) {
		m[w] = true
	}
	return m
}

func TestGitCompletesAgentproto(t *testing.T) {
	dir := newRepo(t)
	if got := words(complete(t, dir, "git agentproto led")); !got["ledger"] || len(got) != 1 {
		t.Errorf("git agentproto led<TAB> = %v, want ledger", got)
	}
	if got := words(complete(t, dir, "git agentproto ledger ")); !got["log"] || !got["verify"] || got["ledger"] {
		t.Errorf("git agentproto ledger <TAB> = %v, want its subcommands", got)
	}
	// Global git options before the command move the index git hands over.
	if got := words(complete(t, dir, "git -C . agentproto ledger log --ki")); !got["--kind"] {
		t.Errorf("git -C . agentproto ledger log --ki<TAB> = %v, want --kind", got)
	}
}

func TestMistypedSubcommandIsAUsageError(t *testing.T) {
	dir := newRepo(t)
	for _, args := range [][]string{{"ledger", "lgo"}, {"plan", "chek", "demo"}} {
		out, errOut, err := sh(t, dir, nil, "git", append([]string{"agentproto"}, args...)...)
		if exitCode(err) != 2 || out != "" {
			t.Errorf("git agentproto %s: exit %d, stdout %q; want exit 2 and nothing on stdout", strings.Join(args, " "), exitCode(err), out)
		}
		want := map[string]string{"lgo": "log", "chek": "check"}[args[1]]
		if !strings.Contains(errOut, `unknown command "`+args[1]+`"`) || !strings.Contains(errOut, "Did you mean this?\n\t"+want) {
			t.Errorf("git agentproto %s: stderr %q lacks the suggestion %q", strings.Join(args, " "), errOut, want)
		}
	}
	// The group alone still prints its help and succeeds.
	if out, _, err := sh(t, dir, nil, "git", "agentproto", "ledger"); err != nil || !strings.Contains(out, "Available Commands") {
		t.Errorf("git agentproto ledger: %v\n%s", err, out)
	}
}

// What completes dynamically comes from the repository: plans, their work
// packages, sessions, worktrees and profiles.
func TestGitCompletesWhatTheRepositoryHolds(t *testing.T) {
	dir := pipelineRepo(t, "", "lower lib/lower.sh")
	cfg, _ := os.ReadFile(filepath.Join(dir, "agentproto.toml"))
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), append(cfg, "[profiles.fast]\nadapter = \"scripted\"\nauth = \"none\"\n"...), 0o644)
	must(t, dir, "git", "agentproto", "worktree", "new", "scratch", "--no-setup")
	id := strings.TrimSpace(must(t, dir, "git", "agentproto", "sessions", "start", "--adapter", "scripted", "--dir", ".", "--prompt", "hi"))
	for line, want := range map[string][]string{
		"git agentproto verify ":                    {"demo"},
		"git agentproto verify demo W":              {"WP0", "WP1", "WP2"},
		"git agentproto dispatch demo --wp ":        {"WP0", "WP1", "WP2"},
		"git agentproto worktree changes ":          {"scratch"},
		"git agentproto sessions output ":           {id},
		"git agentproto profile check ":             {"fast"},
		"git agentproto sessions start --worktree ": {"scratch"},
	} {
		got := words(complete(t, dir, line))
		for _, w := range want {
			if !got[w] {
				t.Errorf("%s<TAB> = %v, want %s among them", line, got, w)
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s<TAB> = %v, want exactly %v", line, got, want)
		}
	}
}

// One spelling per concept: --goal, --agent, --apply; the old names still
// parse but no command shows them.
func TestOneSpellingPerConcept(t *testing.T) {
	io, _, _, _ := cmdutil.Test()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(fl *pflag.Flag) {
			switch fl.Name {
			case "goal-id", "agent-id", "execute":
				t.Errorf("%s still shows --%s", c.CommandPath(), fl.Name)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root.NewCmdRoot(cmdutil.New(io, "test")))

	dir := newRepo(t)
	must(t, dir, "git", "agentproto", "init")
	must(t, dir, "git", "agentproto", "ledger", "append", "--kind", "note", "--id", "old", "--data", "{}", "--goal-id", "g1", "--agent-id", "a1")
	out := must(t, dir, "git", "agentproto", "ledger", "show", "old", "--jq", `.goal + " " + .agent`)
	if strings.TrimSpace(out) != "g1 a1" {
		t.Errorf("--goal-id/--agent-id as aliases recorded %q, want g1 a1", out)
	}
	help := must(t, dir, "git", "agentproto", "supervisor", "inject", "--help")
	if strings.Contains(help, "--goal-id") || strings.Contains(help, "--execute") || !strings.Contains(help, "--apply") {
		t.Errorf("supervisor inject --help shows old spellings:\n%s", help)
	}
}
