package judge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"github.com/agentproto/agentproto/internal/secrets"
	"github.com/agentproto/agentproto/sandbox"
)

// timedOutCode is a judged run's exit code when its bound ended it, as
// timeout(1) reports one.
const timedOutCode = 124

// judgedRun is the outcome of agent-written code run by a judge.
type judgedRun struct {
	ExitCode int
	TimedOut bool
	Confined bool
	Duration time.Duration
}

// runJudged runs name args in dir as agent-written code: in the sandbox
// (sandbox.JudgedCommand), with the environment a build needs and no
// secret, its output to out, bounded by ctx. However it ends — its own
// exit, the bound, a child left in the background or detached — every
// process it started ends with it, and a run the bound ended is timed
// out whatever its exit code.
func runJudged(ctx context.Context, dir string, extra, writable []string, out io.Writer, name string, args ...string) judgedRun {
	start := time.Now()
	cmd, confined, done, err := sandbox.JudgedCommand(ctx, dir, append(secrets.ChildEnv(), extra...), writable, name, args...)
	if err != nil {
		fmt.Fprintf(out, "[agentproto] could not run: %v\n", err)
		return judgedRun{ExitCode: 127, Duration: time.Since(start)}
	}
	defer done()
	cmd.Stdout, cmd.Stderr = out, out
	err = cmd.Run()
	r := judgedRun{Confined: confined, Duration: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		r.ExitCode, r.TimedOut = timedOutCode, true
		fmt.Fprintf(out, "\n[agentproto] stopped after %s (its bound); every process it started was ended\n", r.Duration.Round(time.Millisecond))
	case err == nil:
	case errors.As(err, &ee):
		r.ExitCode = ee.ExitCode()
		if r.ExitCode < 0 {
			r.ExitCode = 128 + 9
		}
	case errors.Is(err, exec.ErrWaitDelay):
		// It exited; a child held its output and was ended.
	default:
		r.ExitCode = 127
		fmt.Fprintf(out, "\n[agentproto] could not run %s: %v\n", name, err)
	}
	return r
}

// runGate runs a gate command with sh in dir, as runJudged does.
func runGate(ctx context.Context, dir, command string, extra, writable []string) (Gate, []byte) {
	var out bytes.Buffer
	r := runJudged(ctx, dir, extra, writable, &out, "sh", "-c", command)
	g := Gate{Command: command, Piped: plansPipe(command), ExitCode: r.ExitCode, TimedOut: r.TimedOut,
		Duration: r.Duration.Round(time.Millisecond).String()}
	return g, out.Bytes()
}

// maxGateLog bounds the gate output RunGate returns: the log a caller keeps.
const maxGateLog = 1 << 20

// RunGate runs a gate command with sh -c in dir and returns its real exit
// code and output, scrubbed of secrets. It runs with the environment a
// build needs, never our tokens (secrets.ChildEnv). A pipe in the command
// is flagged: the shell would report the last command's exit code, not the
// gate's.
func RunGate(ctx context.Context, dir, command string) (Gate, []byte) {
	g, out := runGate(ctx, dir, command, nil, nil)
	log, cut := secrets.ScrubTail(out, maxGateLog)
	if cut {
		log = append([]byte("[... cut ...]\n"), log...)
	}
	return g, log
}

func plansPipe(cmd string) bool {
	return strings.Contains(strings.ReplaceAll(cmd, "||", ""), "|")
}
