// Package e2e runs the built git-agentproto binary against real
// repositories with the real git binary.
package e2e

import (
	"errors"
	"flag"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentproto/agentproto/internal/testbin"
)

// binDir holds the git-agentproto binary built once for all tests.
var binDir string

func TestMain(m *testing.M) { testbin.Main(m, &binDir) }

func gitEnv(home string) []string { return testbin.Env(binDir, home) }

var update = flag.Bool("update", false, "rewrite the golden files of the scripts")

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata",
		UpdateScripts: *update,
		Setup: func(env *testscript.Env) error {
			for _, kv := range gitEnv(env.Getenv("WORK")) {
				k, v, _ := strings.Cut(kv, "=")
				env.Setenv(k, v)
			}
			// Scripts make their repository in $WORK/repo: stop its daemon
			// before the work directory is removed.
			work := env.Getenv("WORK")
			env.Defer(func() {
				if err := testbin.StopDaemon(filepath.Join(work, "repo")); err != nil {
					env.T().Fatal(err)
				}
			})
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// exit N CMD ARGS...: run CMD and require exit code N.
			"exit": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 2 {
					ts.Fatalf("usage: exit CODE COMMAND [ARGS...]")
				}
				want, err := strconv.Atoi(args[0])
				if err != nil {
					ts.Fatalf("exit code %q is not a number", args[0])
				}
				err = ts.Exec(args[1], args[2:]...)
				got := 0
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					got = ee.ExitCode()
				} else if err != nil {
					ts.Fatalf("running %s: %v", args[1], err)
				}
				if got != want {
					ts.Fatalf("%s exited %d, want %d", args[1], got, want)
				}
			},
		},
	})
}
