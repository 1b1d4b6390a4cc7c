package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentproto/agentproto/internal/fault"
)

// callBound is the longest a long tool's call waits before it hands back
// a job: clients commonly give up on a request after 60 s (the MCP
// TypeScript SDK's default), and a client that gives up sends a
// cancellation, which would stop the work.
const callBound = 40 * time.Second

// jobDoc is the answer of a long tool whose work outlasted the call's
// bound: the work goes on, and job_wait returns its result.
type jobDoc struct {
	Job      string   `json:"job" jsonschema:"the job id: give it to job_wait"`
	Tool     string   `json:"tool" jsonschema:"the tool the job runs"`
	Argv     []string `json:"argv" jsonschema:"the command it runs: git agentproto ARGV"`
	State    string   `json:"state" jsonschema:"running or ended"`
	Started  string   `json:"started"`
	ExitCode *int     `json:"exit_code,omitempty" jsonschema:"once ended: the command's exit code"`
	Note     string   `json:"note" jsonschema:"what to do next"`
}

// A job is one long tool's work run as `git-agentproto ARGV --json` in a
// process group of its own, the way the sessions daemon runs a policy's
// verify: its output and exit code go to files under
// GITDIR/agentproto/jobs/ID, written by a shell wrapper, so the work
// outlives this server. A client that closes stdin, times out or is
// killed loses nothing: the command records its result in the ledger
// itself, and job_wait reads the rest from any later connection.
type job struct {
	dir  string
	meta jobDoc
}

// jobWrapper runs the command and writes its exit code when it ends;
// "$0" is the binary and "$@" its arguments, never a shell string.
const jobWrapper = `"$0" "$@" >"$AGENTPROTO_JOB/out" 2>"$AGENTPROTO_JOB/err"; echo $? >"$AGENTPROTO_JOB/exit.tmp"; mv "$AGENTPROTO_JOB/exit.tmp" "$AGENTPROTO_JOB/exit"`

var jobID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^j-[0-9a-f]{12}$`) })

func (e *env) jobsDir() string { return filepath.Join(e.repo.CommonDir, "agentproto", "jobs") }

// exe is the binary jobs run: the one serving (Options.Serve names it).
func (e *env) exe() (string, error) {
	if len(e.opts.Serve) > 0 {
		return e.opts.Serve[0], nil
	}
	return os.Executable()
}

// startJob starts `git-agentproto ARGV` as tool's job.
func (e *env) startJob(tool string, argv []string) (*job, error) {
	exe, err := e.exe()
	if err != nil {
		return nil, err
	}
	pruneJobs(e.jobsDir(), time.Now(), jobKeep)
	b := make([]byte, 6)
	rand.Read(b)
	j := &job{meta: jobDoc{Job: "j-" + hex.EncodeToString(b), Tool: tool, Argv: argv, State: "running",
		Started: time.Now().UTC().Format(time.RFC3339)}}
	j.dir = filepath.Join(e.jobsDir(), j.meta.Job)
	if err := os.MkdirAll(j.dir, 0o700); err != nil {
		return nil, err
	}
	cmd := exec.Command("sh", append([]string{"-c", jobWrapper, exe}, argv...)...)
	cmd.Dir = e.repo.WorkTree
	cmd.Env = append(os.Environ(), "AGENTPROTO_JOB="+j.dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	meta, _ := json.Marshal(j.meta)
	os.WriteFile(filepath.Join(j.dir, "pid"), []byte(strconv.Itoa(cmd.Process.Pid)), 0o600)
	os.WriteFile(filepath.Join(j.dir, "job.json"), meta, 0o600)
	// Reap it while this server lives; past that, init does.
	go cmd.Wait()
	return j, nil
}

// openJob reads a job this server or an earlier one started.
func (e *env) openJob(id string) (*job, error) {
	if !jobID().MatchString(id) {
		return nil, fault.Invalidf("job %q: a job id is j- and 12 hex digits, as a long tool answered", id)
	}
	j := &job{dir: filepath.Join(e.jobsDir(), id)}
	b, err := os.ReadFile(filepath.Join(j.dir, "job.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fault.Invalidf("no job %s in this repository", id)
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &j.meta); err != nil {
		return nil, fmt.Errorf("job %s: %v", id, err)
	}
	return j, nil
}

// killedCode is the exit code of a job whose wrapper was killed before
// it could write one (job_cancel, a reboot): 128 + SIGTERM, as a shell
// reports it.
const killedCode = 143

// exitCode is the command's exit code once it ended: the one the wrapper
// wrote, or killedCode when the wrapper is gone without writing it.
func (j *job) exitCode() (int, bool) {
	read := func() (int, bool) {
		b, err := os.ReadFile(filepath.Join(j.dir, "exit"))
		if err != nil {
			return 0, false
		}
		n, err := strconv.Atoi(strings.TrimSpace(string(b)))
		return n, err == nil
	}
	if n, ok := read(); ok {
		return n, true
	}
	if pid := j.pid(); pid > 1 && errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
		if n, ok := read(); ok {
			return n, true
		}
		return killedCode, true
	}
	return 0, false
}

func (j *job) pid() int {
	b, _ := os.ReadFile(filepath.Join(j.dir, "pid"))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

// wait waits up to d (or ctx) for the job to end, calling tick about
// every two seconds with what it last said on stderr.
func (j *job) wait(ctx context.Context, d time.Duration, tick func(elapsed time.Duration, said string)) bool {
	start := time.Now()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	poll := time.NewTicker(100 * time.Millisecond)
	defer poll.Stop()
	last := start
	for {
		if _, ok := j.exitCode(); ok {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-deadline.C:
			return false
		case now := <-poll.C:
			if tick != nil && now.Sub(last) >= 2*time.Second {
				last = now
				tick(now.Sub(start).Round(time.Second), j.lastSaid())
			}
		}
	}
}

// lastSaid is the last line the command wrote on stderr.
func (j *job) lastSaid() string {
	b, _ := os.ReadFile(filepath.Join(j.dir, "err"))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.TrimPrefix(lines[len(lines)-1], "error: ")
}

// stop ends the job's process group: the command and what it started.
func (j *job) stop() error {
	pid := j.pid()
	if pid <= 1 {
		return fmt.Errorf("job %s has no process id", j.meta.Job)
	}
	if err := syscall.Kill(-pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}

// outcome is an ended job's document (what the command printed with
// --json, nil when it printed none) and its failure, typed by its exit
// code as the CLI maps kinds to codes.
func (j *job) outcome() ([]byte, error) {
	code, _ := j.exitCode()
	doc, _ := os.ReadFile(filepath.Join(j.dir, "out"))
	doc = bytes.TrimSpace(doc)
	if !json.Valid(doc) || len(doc) == 0 || doc[0] != '{' {
		doc = nil
	}
	if code == 0 {
		return doc, nil
	}
	msg := j.lastSaid()
	if msg == "" {
		msg = fmt.Sprintf("%s ended with exit %d", j.meta.Tool, code)
	}
	return doc, fault.Wrap(fault.Kind(code), errors.New(msg))
}

// handoff is the answer of a call whose job goes on.
func (j *job) handoff() *jobDoc {
	d := j.meta
	d.Note = fmt.Sprintf("%s goes on past this call's bound; call job_wait {\"job\": %q} for its result "+
		"(the result is recorded in the ledger whatever happens to this connection)", j.meta.Tool, j.meta.Job)
	return &d
}
