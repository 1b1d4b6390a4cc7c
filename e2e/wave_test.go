package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// The WPs of a wave that start from the same dependency start from one
// checkpoint of it: WP0's worktree is checked against its verification
// once for the wave (one git add there), not once for each WP starting
// from it; both start from the same commit and pass. WP0's worktree, a
// quiet sibling of both, gets one git status for the wave's starts and
// one in each verify (before, one in each start too).
func TestAWaveCheckpointsItsDependencyOnce(t *testing.T) {
	dir := pipelineRepo(t, "", "lower lib/lower.sh")
	must(t, dir, "git", "agentproto", "dispatch", "demo", "--wp", "WP0")
	must(t, dir, "git", "agentproto", "checkpoint", "demo", "WP0")
	trace := filepath.Join(t.TempDir(), "trace2.json")
	out, errOut, err := shEnv(t, dir, []string{"GIT_TRACE2_EVENT=" + trace}, "git", "agentproto", "dispatch", "demo")
	if err != nil {
		t.Fatalf("dispatch: %v\n%s%s", err, out, errOut)
	}
	wp0 := strings.TrimSpace(must(t, dir, "git", "rev-parse", "wt/demo-wp0"))
	for _, wp := range []string{"WP1", "WP2"} {
		if !strings.Contains(out, "WP0   checkpoint "+wp0[:12]+" (1 paths); "+wp+" starts from it") {
			t.Fatalf("%s does not start from WP0's checkpoint %.12s:\n%s", wp, wp0, out)
		}
		if v := verifyJSON(t, dir, wp); v.Verdict != "pass" || v.Base != wp0 {
			t.Fatalf("%s: %+v", wp, v)
		}
	}
	wt0, err := filepath.EvalSymlinks(filepath.Join(homeOf(t), ".agentproto", "worktrees", "repo", "demo-wp0"))
	if err != nil {
		t.Fatal(err)
	}
	if adds := gitRunsIn(t, trace, wt0, "add"); adds != 1 {
		t.Fatalf("git add ran %d times in WP0's worktree during the wave, want 1 (its checkpoint)", adds)
	}
	if statuses := gitRunsIn(t, trace, wt0, "status"); statuses != 3 {
		t.Fatalf("git status ran %d times in WP0's worktree during the wave, want 3 (the starts, then each verify)", statuses)
	}
}

// gitRunsIn counts the git processes of a GIT_TRACE2_EVENT file that ran
// the subcommand sub in the worktree wt.
func gitRunsIn(t *testing.T, trace, wt, sub string) int {
	t.Helper()
	f, err := os.Open(trace)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	argv, worktree := map[string][]string{}, map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e struct {
			Event, Sid, Worktree string
			Argv                 []string
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		switch e.Event {
		case "start":
			argv[e.Sid] = e.Argv
		case "def_repo":
			worktree[e.Sid] = e.Worktree
		}
	}
	if len(argv) == 0 {
		t.Fatalf("no git process in the trace %s", trace)
	}
	n := 0
	for sid, a := range argv {
		if worktree[sid] == wt && slices.Contains(a, sub) {
			n++
		}
	}
	return n
}

// Without the sandbox, a WP of a wave that writes into the worktree of a
// quiet sibling of an earlier wave (WP0, checkpointed) is found, though
// the wave's starts share one status of that worktree, taken before the
// later WP started: the change fails the wave, and the WP beside it, at
// work all along, is not blamed.
func TestAWriteIntoAnEarlierWavesWorktreeIsFound(t *testing.T) {
	plant := runStep(`w=$(git worktree list --porcelain | sed -n 's/^worktree //p' | grep '/demo-wp0$') && echo planted > "$w/planted.txt"; sleep 1`)
	dir := pipelineRepoConfig(t, sandboxOff, plant, "lower lib/lower.sh")
	must(t, dir, "git", "agentproto", "dispatch", "demo", "--wp", "WP0")
	must(t, dir, "git", "agentproto", "checkpoint", "demo", "WP0")
	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo")
	if exitCode(err) != 1 {
		t.Fatalf("dispatch: exit %d\n%s\n%s", exitCode(err), out, errOut)
	}
	if v := verifyJSON(t, dir, "WP1"); v.Verdict != "pass" || hasFinding(v, "planted.txt") {
		t.Errorf("WP1 was blamed: %+v", v)
	}
	v := verifyJSON(t, dir, "WP2")
	found := hasFinding(v, "sibling-worktree: WP0's worktree", "planted.txt")
	for _, u := range v.Unattributed {
		found = found || strings.Contains(u, "sibling-worktree: WP0's worktree") && strings.Contains(u, "planted.txt")
	}
	if !found {
		t.Fatalf("WP2's write into WP0's worktree was not found: %+v\n%s\n%s", v, out, errOut)
	}
}

// A wave whose WPs start from different dependencies checkpoints each as
// its WP is prepared: a dependency's worktree, where the checkpoint
// commits its verified work, is looked at again by the starts after, not
// taken from an earlier start's status of it — else every verify of the
// wave would find its files gone from its status and fail the wave.
func TestAWaveOnTwoDependenciesPasses(t *testing.T) {
	wp := func(id, dep string) string {
		s := fmt.Sprintf("[[wp]]\nid = %q\ntitle = %q\nowns = [\"%s/**\"]\n", id, strings.ToLower(id), strings.ToLower(id))
		if dep != "" {
			s += fmt.Sprintf("depends_on = [%q]\n", dep)
		}
		return s
	}
	scripts := map[string]string{}
	for _, id := range []string{"WP0", "WP1", "WP2", "WP3", "WP4"} {
		f := strings.ToLower(id) + "/x.txt"
		scripts[id] = fmt.Sprintf(`{"op":"write","path":%q,"content":"x\n"}
{"op":"report","report":{"wp":%q,"files":[%q],"design_choices":[],"wiring":[],"exit_codes":[]}}`, f, id, f)
	}
	dir := scriptedPlan(t, map[string]string{"agentproto.toml": "[dispatch]\nadapter = \"scripted\"\n"},
		wp("WP0", "")+wp("WP1", "WP0")+wp("WP2", "WP0")+wp("WP3", "WP1")+wp("WP4", "WP2"), scripts)
	must(t, dir, "git", "agentproto", "dispatch", "demo", "--wp", "WP0")
	must(t, dir, "git", "agentproto", "dispatch", "demo", "--wp", "WP1", "--wp", "WP2") // verified, not checkpointed
	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo")
	if err != nil || !strings.Contains(out, "WP1   checkpoint") || !strings.Contains(out, "WP2   checkpoint") {
		t.Fatalf("dispatch of WP3 and WP4: %v\n%s%s", err, out, errOut)
	}
	for _, id := range []string{"WP3", "WP4"} {
		if v := verifyJSON(t, dir, id); v.Verdict != "pass" || len(v.Unattributed) > 0 {
			t.Fatalf("%s: %+v", id, v)
		}
	}
}

// A wave in which one WP fails: dispatch returns with the sessions of the
// WPs that passed ended — cleaned, their launchers gone — and the failed
// WP's session alive and settled, for its supervisor to tell what to fix.
func TestAWaveEndsTheSessionsThatPassedAndKeepsTheOneThatFailed(t *testing.T) {
	wp := func(id, own string) string {
		return fmt.Sprintf("[[wp]]\nid = %q\ntitle = %q\nowns = [\"%s/**\"]\ndepends_on = [\"WP0\"]\n", id, own, own)
	}
	scripts := map[string]string{}
	for id, own := range map[string]string{"WP0": "a", "WP1": "b", "WP2": "c", "WP3": "d"} {
		steps := writeStep(own+"/x.txt", "x\n")
		files := fmt.Sprintf("%q", own+"/x.txt")
		if id == "WP2" { // outside its perimeter too
			steps += "\n" + writeStep("b/planted.txt", "x\n")
			files += `,"b/planted.txt"`
		}
		scripts[id] = steps + "\n" + `{"op":"report","report":{"wp":"` + id + `","files":[` + files + `],"design_choices":[],"wiring":[],"exit_codes":[]}}`
	}
	dir := scriptedPlan(t, map[string]string{"agentproto.toml": "[dispatch]\nadapter = \"scripted\"\n" + sandboxWorktree},
		"[[wp]]\nid = \"WP0\"\ntitle = \"a\"\nowns = [\"a/**\"]\n"+wp("WP1", "b")+wp("WP2", "c")+wp("WP3", "d"), scripts)
	must(t, dir, "git", "agentproto", "dispatch", "demo", "--wp", "WP0")
	out, errOut, err := sh(t, dir, nil, "git", "agentproto", "dispatch", "demo")
	if err == nil || !strings.Contains(errOut, "WP2 failed verification") {
		t.Fatalf("dispatch: %v\n%s%s", err, out, errOut)
	}
	var recs []struct {
		Label, State string
		Pid          int
	}
	if err := json.Unmarshal([]byte(must(t, dir, "git", "agentproto", "sessions", "ls", "--all", "--json")), &recs); err != nil {
		t.Fatal(err)
	}
	states := map[string]string{}
	for _, r := range recs {
		states[r.Label] = r.State
		alive := r.Pid > 0 && syscall.Kill(r.Pid, 0) == nil
		if r.Label == "demo/WP2" && !alive {
			t.Errorf("the failed WP's session has no process left (%s, pid %d)", r.State, r.Pid)
		}
		if (r.Label == "demo/WP1" || r.Label == "demo/WP3") && alive {
			t.Errorf("%s passed, but its launcher %d still runs", r.Label, r.Pid)
		}
	}
	if states["demo/WP1"] != "cleaned" || states["demo/WP3"] != "cleaned" || states["demo/WP2"] != "settled" {
		t.Fatalf("after the wave: %v\n%s%s", states, out, errOut)
	}
}
