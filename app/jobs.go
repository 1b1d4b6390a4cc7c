package app

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
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/lazyre"
)

// JobDoc is what a job is: the answer of a long use case whose work
// outlasted its caller's bound, and what job_wait and job_cancel report.
type JobDoc struct {
	Job      string   `json:"job" jsonschema:"the job id: give it to job_wait"`
	Tool     string   `json:"tool" jsonschema:"the tool the job runs"`
	Argv     []string `json:"argv" jsonschema:"the command it runs: git agentproto ARGV"`
	State    string   `json:"state" jsonschema:"running or ended"`
	Started  string   `json:"started"`
	ExitCode *int     `json:"exit_code,omitempty" jsonschema:"once ended: the command's exit code"`
	Note     string   `json:"note" jsonschema:"what to do next"`
}

// A Job is one long use case run as `git-agentproto ARGV --json` in a
// process group of its own, the way the sessions daemon runs a policy's
// verify: its output and exit code go to files under
// GITDIR/agentproto/jobs/ID, written by a shell wrapper, so the work
// outlives the process that started it. A caller that goes away loses
// nothing: the command records its result in the ledger itself, and
// OpenJob reads the rest from any later process.
type Job struct {
	dir string
	// Doc is the job as started: id, tool, argv, start time.
	Doc JobDoc
}

// jobWrapper runs the command and writes its exit code when it ends;
// "$0" is the binary and "$@" its arguments, never a shell string.
const jobWrapper = `"$0" "$@" >"$AGENTPROTO_JOB/out" 2>"$AGENTPROTO_JOB/err"; echo $? >"$AGENTPROTO_JOB/exit.tmp"; mv "$AGENTPROTO_JOB/exit.tmp" "$AGENTPROTO_JOB/exit"`

var jobID = lazyre.New(`^j-[0-9a-f]{12}$`)

func (e *Env) jobsDir() (string, error) {
	repo, err := e.Repo()
	if err != nil {
		return "", err
	}
	return filepath.Join(repo.CommonDir, "agentproto", "jobs"), nil
}

// jobBinary is the binary jobs run: the one that serves the sessions
// daemon, which is this program.
func (e *Env) jobBinary() (string, error) {
	if c, err := e.Sessions(); err == nil && len(c.Serve) > 0 {
		return c.Serve[0], nil
	}
	return os.Executable()
}

// startJob starts `git-agentproto ARGV` in the work tree as tool's job,
// first removing the files of jobs that ended long ago.
func (e *Env) startJob(ctx context.Context, tool string, argv []string) (*Job, error) {
	repo, err := e.Repo()
	if err != nil {
		return nil, err
	}
	exe, err := e.jobBinary()
	if err != nil {
		return nil, err
	}
	dir, _ := e.jobsDir()
	pruneJobs(dir, time.Now(), jobKeep)
	b := make([]byte, 6)
	rand.Read(b)
	j := &Job{Doc: JobDoc{Job: "j-" + hex.EncodeToString(b), Tool: tool, Argv: argv, State: "running",
		Started: time.Now().UTC().Format(time.RFC3339)}}
	j.dir = filepath.Join(dir, j.Doc.Job)
	if err := os.MkdirAll(j.dir, 0o700); err != nil {
		return nil, err
	}
	cmd := exec.Command("sh", append([]string{"-c", jobWrapper, exe}, argv...)...)
	cmd.Dir = repo.WorkTree
	cmd.Env = append(os.Environ(), "AGENTPROTO_JOB="+j.dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	meta, _ := json.Marshal(j.Doc)
	os.WriteFile(filepath.Join(j.dir, "pid"), []byte(strconv.Itoa(cmd.Process.Pid)), 0o600)
	os.WriteFile(filepath.Join(j.dir, "job.json"), meta, 0o600)
	// Reap it while this process lives; past that, init does.
	go cmd.Wait()
	return j, nil
}

// RunJob starts tool's job and waits up to d for it to end, calling tick
// as Wait does; done says it ended. A ctx cancelled before the end stops
// the job: the caller that asked for it is gone.
func (e *Env) RunJob(ctx context.Context, tool string, argv []string, d time.Duration,
	tick func(elapsed time.Duration, said string)) (j *Job, done bool, err error) {
	j, err = e.startJob(ctx, tool, argv)
	if err != nil {
		return nil, false, err
	}
	done = j.Wait(ctx, d, tick)
	if ctx.Err() != nil && !done {
		j.stop()
		return j, false, fault.Wrap(fault.Failure, fmt.Errorf("%s canceled; its job %s was stopped", tool, j.Doc.Job))
	}
	return j, done, nil
}

// OpenJob reads a job this process or an earlier one started.
func (e *Env) OpenJob(ctx context.Context, id string) (*Job, error) {
	if !jobID.MatchString(id) {
		return nil, fault.Invalidf("job %q: a job id is j- and 12 hex digits, as a long tool answered", id)
	}
	dir, err := e.jobsDir()
	if err != nil {
		return nil, err
	}
	j := &Job{dir: filepath.Join(dir, id)}
	b, err := os.ReadFile(filepath.Join(j.dir, "job.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fault.Invalidf("no job %s in this repository", id)
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &j.Doc); err != nil {
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
func (j *Job) exitCode() (int, bool) {
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

func (j *Job) pid() int {
	b, _ := os.ReadFile(filepath.Join(j.dir, "pid"))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

// Wait waits up to d (or ctx) for the job to end, calling tick about
// every two seconds with what it last said on stderr; it says whether the
// job ended.
func (j *Job) Wait(ctx context.Context, d time.Duration, tick func(elapsed time.Duration, said string)) bool {
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
func (j *Job) lastSaid() string {
	b, _ := os.ReadFile(filepath.Join(j.dir, "err"))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.TrimPrefix(lines[len(lines)-1], "error: ")
}

// stop ends the job's process group: the command and what it started.
func (j *Job) stop() error {
	pid := j.pid()
	if pid <= 1 {
		return fmt.Errorf("job %s has no process id", j.Doc.Job)
	}
	if err := syscall.Kill(-pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}

// Cancel stops a job that has not ended and waits a little for it to;
// stopping an ended job does nothing. It returns the job as it stands.
func (j *Job) Cancel(ctx context.Context) (*JobDoc, error) {
	if _, ended := j.exitCode(); !ended {
		if err := j.stop(); err != nil {
			return nil, err
		}
		j.Wait(ctx, 5*time.Second, nil)
	}
	d := j.Doc
	d.State, d.Note = "ended", "stopped; job_wait gives what it printed"
	if code, ok := j.exitCode(); ok {
		d.ExitCode = &code
	} else {
		d.State, d.Note = "running", "asked to stop; it has not ended yet"
	}
	return &d, nil
}

// Outcome is an ended job's document (what the command printed with
// --json, nil when it printed none) and its failure, typed by its exit
// code as the CLI maps kinds to codes.
func (j *Job) Outcome() ([]byte, error) {
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
		msg = fmt.Sprintf("%s ended with exit %d", j.Doc.Tool, code)
	}
	return doc, fault.Wrap(fault.Kind(code), errors.New(msg))
}

// Handoff is the answer of a call whose job goes on.
func (j *Job) Handoff() *JobDoc {
	d := j.Doc
	d.Note = fmt.Sprintf("%s goes on past this call's bound; call job_wait {\"job\": %q} for its result "+
		"(the result is recorded in the ledger whatever happens to this connection)", j.Doc.Tool, j.Doc.Job)
	return &d
}

// jobKeep is how long an ended job's files stay for job_wait: a week
// covers a client that comes back for its result; the result itself is in
// the ledger for good.
const jobKeep = 7 * 24 * time.Hour

// pruneJobs removes the files of the jobs under dir that ended more than
// keep before now, so the directory holds about a week's work however
// many jobs ran. A job still running is never touched.
func pruneJobs(dir string, now time.Time, keep time.Duration) (removed int) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	for _, ent := range entries {
		if !ent.IsDir() || !jobID.MatchString(ent.Name()) {
			continue
		}
		j := &Job{dir: filepath.Join(dir, ent.Name())}
		if _, ended := j.exitCode(); !ended {
			continue
		}
		// The exit file's time is when it ended; a job killed before it
		// could write one ended no later than it last wrote anything.
		for _, name := range []string{"exit", "err", "job.json"} {
			if fi, err := os.Stat(filepath.Join(j.dir, name)); err == nil {
				if now.Sub(fi.ModTime()) > keep && os.RemoveAll(j.dir) == nil {
					removed++
				}
				break
			}
		}
	}
	return removed
}
