package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"

	"github.com/agentproto/agentproto/gitstore"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/secrets"
	"github.com/agentproto/agentproto/plans"
	"github.com/agentproto/agentproto/sessions"
	"github.com/agentproto/agentproto/worktree"
)

// maxGateLog bounds the gate output kept in the ledger.
const maxGateLog = 1 << 20

// RunGate runs a gate command with sh -c in dir and returns its real exit
// code and output, scrubbed of secrets. It runs with the environment a
// build needs, never our tokens (secrets.ChildEnv). A pipe in the command
// is flagged: the shell would report the last command's exit code, not the
// gate's.
func RunGate(ctx context.Context, dir, command string) (Gate, []byte) {
	g := Gate{Command: command, Piped: plansPipe(command)}
	start := time.Now()
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Dir = dir
	cmd.Env = secrets.ChildEnv()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	g.Duration = time.Since(start).Round(time.Millisecond).String()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		g.ExitCode = ee.ExitCode()
		if g.ExitCode < 0 {
			g.ExitCode = 128 + 9 // killed (timeout)
		}
	default:
		g.ExitCode = 127
		fmt.Fprintf(&out, "\n[agentproto] could not run the gate: %v\n", err)
	}
	log, cut := secrets.ScrubTail(out.Bytes(), maxGateLog)
	if cut {
		log = append([]byte("[... cut ...]\n"), log...)
	}
	return g, log
}

func plansPipe(cmd string) bool {
	return strings.Contains(strings.ReplaceAll(cmd, "||", ""), "|")
}

// Verify checks a WP against the disk, never against its report: every
// changed path of its worktree must be in its perimeter (shared files are
// not), the gate is run again here and its exit code is what counts.
func (e *Env) Verify(wpID string, gateTimeout time.Duration) (*Verification, error) {
	frozen, err := e.Frozen()
	if err != nil {
		return nil, err
	}
	wp, err := e.Project.WP(wpID)
	if err != nil {
		return nil, err
	}
	m, err := worktree.Load(e.Repo, Slug(e.Project.Name, wp.ID))
	if err != nil {
		return nil, fault.Invalidf("%s has no worktree yet (git agentproto dispatch %s --wp %s)", wp.ID, e.Project.Name, wp.ID)
	}
	v := &Verification{Project: e.Project.Name, WP: wp.ID, Worktree: m.Path, Changed: []string{}, OutOfScope: []string{}}
	head, err := worktree.Repo(e.Repo, m).Git("rev-parse", "HEAD")
	if err != nil {
		return nil, err
	}
	v.Head = strings.TrimSpace(string(head))
	changes, err := worktree.Changes(e.Repo, m)
	if err != nil {
		return nil, err
	}
	for _, c := range changes {
		v.Changed = append(v.Changed, c.Path)
		owners := plans.Owner(e.Project, c.Path)
		if len(owners) != 1 || owners[0] != wp.ID {
			v.OutOfScope = append(v.OutOfScope, c.Path)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), gateTimeout)
	defer cancel()
	gate, log := RunGate(ctx, m.Path, frozen.Gate)
	gate.Log = "gate.log"
	v.Gate = gate
	atts := []gitstore.AttachmentInput{{Name: "gate.log", Content: log}}

	// The report is read for consolidation; it proves nothing by itself.
	if st, err := ReadState(e.Ledger, e.Project.Name); err == nil {
		if d, ok := st.LastDispatch(wp.ID); ok && d.Session != "" {
			out, _ := os.ReadFile(sessions.NewStore(e.Repo.CommonDir).OutputPath(d.Session))
			r, err := ParseReport(out)
			switch {
			case err != nil:
				v.Findings = append(v.Findings, "report-malformed: "+err.Error())
			case r == nil:
				v.Findings = append(v.Findings, "report-missing: the session output has no agentproto-report block")
			default:
				v.Report = r
			}
		}
	}
	switch {
	case len(v.Changed) == 0:
		v.Findings = append(v.Findings, "no-changes: nothing changed in the worktree")
	case gate.Piped:
		v.Findings = append(v.Findings, "gate-pipe: the gate pipes its output, so its exit code is not the gate's")
	}
	sort.Strings(v.OutOfScope)
	v.Verdict = Pass
	if len(v.OutOfScope) > 0 || gate.ExitCode != 0 || gate.Piped || len(v.Changed) == 0 {
		v.Verdict = Fail
	}
	id := fmt.Sprintf("pipeline/%s/%s/verify/%d", e.Project.Name, wp.ID, time.Now().UnixNano())
	if err := e.record(KindVerified, id, v, atts); err != nil {
		return v, err
	}
	return v, nil
}
