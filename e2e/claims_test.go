package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// claimClones makes a bare remote and two initialised clones sharing one
// goal with todos, peers alice (meant for a) and bob (meant for b).
func claimClones(t *testing.T, todos int) (remote, a, b string) {
	t.Helper()
	root := t.TempDir()
	remote = filepath.Join(root, "remote.git")
	must(t, root, "git", "init", "-q", "--bare", "-b", "main", remote)
	a, b = filepath.Join(root, "a"), filepath.Join(root, "b")
	must(t, root, "git", "clone", "-q", remote, a)
	must(t, a, "git", "commit", "-q", "--allow-empty", "-m", "initial")
	must(t, a, "git", "push", "-q", "origin", "main")
	must(t, root, "git", "clone", "-q", remote, b)
	for _, d := range []string{a, b} {
		must(t, d, "git", "agentproto", "init")
	}
	ap := func(args ...string) { must(t, a, "git", append([]string{"agentproto"}, args...)...) }
	for _, p := range []string{"sup", "alice", "bob"} {
		ap("peer", "register", p, "--adapter", "scripted", "--capability", "session_interrupt")
	}
	ap("goal", "new", "g", "--title", "Race")
	for i := range todos {
		ap("todo", "add", "--goal", "g", "--id", fmt.Sprintf("t%02d", i), "--title", "todo")
	}
	ap("sync")
	must(t, b, "git", "agentproto", "sync")
	return remote, a, b
}

type claimRun struct {
	out, errOut string
	code        int
}

func claimIn(t *testing.T, dir string, args ...string) claimRun {
	out, errOut, err := sh(t, dir, nil, "git", append([]string{"agentproto", "todo"}, args...)...)
	return claimRun{out, errOut, exitCode(err)}
}

// remoteHolder reads the claim record on the bare remote itself.
func remoteHolder(t *testing.T, remote, todo string) map[string]string {
	t.Helper()
	out := must(t, remote, "git", "cat-file", "blob", "refs/agentproto/claims/g/"+todo+":claim.json")
	var rec map[string]string
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	return rec
}

// Two clones race for the same todo, launched together, round after round:
// the remote lets exactly one through; the other exits 3 naming the holder
// and its lease end.
func TestClaimRaceTwoClonesOneWinner(t *testing.T) {
	const rounds = 20
	remote, a, b := claimClones(t, rounds)
	wins, pushRaces := map[string]int{}, 0
	race := func(i int, todo string) (winner string) {
		t.Helper()
		var ra, rb claimRun
		var wg sync.WaitGroup
		gate := make(chan struct{})
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-gate
			ra = claimIn(t, a, "claim", "--goal", "g", "--todo", todo, "--agent", "alice")
		}()
		go func() {
			defer wg.Done()
			<-gate
			rb = claimIn(t, b, "claim", "--goal", "g", "--todo", todo, "--agent", "bob")
		}()
		close(gate)
		wg.Wait()
		winner, loser, lose := "alice", "bob", rb
		if ra.code != 0 {
			winner, loser, lose = "bob", "alice", ra
		}
		if ra.code+rb.code != 3 || (ra.code != 0 && rb.code != 0) {
			t.Fatalf("round %d: exits %d and %d, want one 0 and one 3\nA: %s%s\nB: %s%s", i, ra.code, rb.code, ra.out, ra.errOut, rb.out, rb.errOut)
		}
		rec := remoteHolder(t, remote, todo)
		if rec["agent"] != winner || rec["state"] != "held" {
			t.Fatalf("round %d: the remote holds %v, the winner was %s", i, rec, winner)
		}
		if want := "claimed by " + winner; !strings.Contains(lose.errOut, want) || !strings.Contains(lose.errOut, rec["lease_until"]) {
			t.Fatalf("round %d: %s's error does not name %s and %s: %s", i, loser, winner, rec["lease_until"], lose.errOut)
		}
		wins[winner]++
		if strings.Contains(lose.errOut, "won the push race") {
			pushRaces++
		}
		return winner
	}
	start := time.Now()
	for i := range rounds {
		race(i, fmt.Sprintf("t%02d", i))
	}
	t.Logf("%d contended rounds in %v (%.1f rounds/s, wins %v, %d decided by the push CAS, the rest by reading the ref)",
		rounds, time.Since(start), rounds/time.Since(start).Seconds(), wins, pushRaces)

	// A release hands over to whichever wins the next race: a compare-and-
	// swap on the released commit, not a create.
	const again = 5
	for i := range again {
		todo := fmt.Sprintf("t%02d", i)
		dir, holder := a, remoteHolder(t, remote, todo)["agent"]
		if holder == "bob" {
			dir = b
		}
		if r := claimIn(t, dir, "release", "--goal", "g", "--todo", todo, "--agent", holder); r.code != 0 {
			t.Fatalf("release %s: exit %d: %s", todo, r.code, r.errOut)
		}
		race(rounds+i, todo)
	}

	// Both ledgers tell the whole story after sync: every win and every loss.
	must(t, a, "git", "agentproto", "sync")
	must(t, b, "git", "agentproto", "sync")
	must(t, a, "git", "agentproto", "sync")
	for _, d := range []string{a, b} {
		log := must(t, d, "git", "agentproto", "ledger", "log", "--json")
		for kind, want := range map[string]int{"todo_claimed": rounds + again, "todo_claim_lost": rounds + again, "todo_released": again} {
			if n := strings.Count(log, `"kind":"`+kind+`"`); n != want {
				t.Fatalf("%s: %d %s events in the ledger, want %d", d, n, kind, want)
			}
		}
	}
}

// Release and an expired lease hand a claim over through the remote; the
// previous holder can no longer release it; both ledgers record each step.
func TestClaimReleaseAndExpiryHandOver(t *testing.T) {
	remote, a, b := claimClones(t, 2)
	claim := func(dir, todo, agent string, more ...string) claimRun {
		return claimIn(t, dir, append([]string{"claim", "--goal", "g", "--todo", todo, "--agent", agent}, more...)...)
	}
	want := func(r claimRun, code int, text string) {
		t.Helper()
		if r.code != code || !strings.Contains(r.out+r.errOut, text) {
			t.Fatalf("exit %d, want %d with %q:\n%s%s", r.code, code, text, r.out, r.errOut)
		}
	}
	want(claim(a, "t00", "alice"), 0, "alice claims t00 until")
	want(claim(b, "t00", "bob"), 3, "claimed by alice")
	want(claimIn(t, b, "release", "--goal", "g", "--todo", "t00", "--agent", "bob"), 3, "claimed by alice")
	want(claimIn(t, a, "release", "--goal", "g", "--todo", "t00", "--agent", "alice"), 0, "alice released t00")
	if rec := remoteHolder(t, remote, "t00"); rec["state"] != "released" {
		t.Fatalf("after release the remote holds %v", rec)
	}
	want(claim(b, "t00", "bob"), 0, "bob claims t00 until")
	first := remoteHolder(t, remote, "t00")["lease_until"]
	time.Sleep(1100 * time.Millisecond)
	want(claim(b, "t00", "bob"), 0, "bob claims t00 until") // its holder renews
	if again := remoteHolder(t, remote, "t00")["lease_until"]; again <= first {
		t.Fatalf("renewal kept the lease end %s (was %s)", again, first)
	}

	// Expiry: alice's three-second lease runs out and bob takes it over.
	want(claim(a, "t01", "alice", "--lease", "3s"), 0, "alice claims t01")
	want(claim(b, "t01", "bob"), 3, "claimed by alice")
	time.Sleep(4100 * time.Millisecond)
	want(claim(b, "t01", "bob"), 0, "bob claims t01")
	if rec := remoteHolder(t, remote, "t01"); rec["agent"] != "bob" {
		t.Fatalf("after take-over the remote holds %v", rec)
	}
	want(claimIn(t, a, "release", "--goal", "g", "--todo", "t01", "--agent", "alice"), 3, "claimed by bob")

	// Every update of a claim ref was a fast-forward: a plain, non-forcing
	// git fetch with init's refspec takes them all.
	must(t, a, "git", "fetch", "-q")
	must(t, a, "git", "agentproto", "sync")
	must(t, b, "git", "agentproto", "sync")
	must(t, a, "git", "agentproto", "sync")
	logA := must(t, a, "git", "agentproto", "ledger", "log", "--json")
	logB := must(t, b, "git", "agentproto", "ledger", "log", "--json")
	for _, log := range []string{logA, logB} {
		for kind, n := range map[string]int{"todo_claimed": 5, "todo_claim_lost": 2, "todo_released": 1} {
			if got := strings.Count(log, `"kind":"`+kind+`"`); got != n {
				t.Fatalf("%d %s events, want %d:\n%s", got, kind, n, log)
			}
		}
		if !strings.Contains(log, `"took_over_from":"alice"`) {
			t.Fatalf("the take-over is not recorded:\n%s", log)
		}
	}
}

// Without a remote the claim fails saying so, writes nothing, and --local
// claims on this clone only; the packet shows each claim's arbiter state.
func TestClaimArbiterStates(t *testing.T) {
	dir := newRepo(t)
	ap := func(args ...string) string { return must(t, dir, "git", append([]string{"agentproto"}, args...)...) }
	for _, p := range []string{"sup", "alice", "bob"} {
		ap("peer", "register", p, "--adapter", "scripted", "--capability", "session_interrupt")
	}
	ap("goal", "new", "g", "--title", "States")
	ap("todo", "add", "--goal", "g", "--id", "t00", "--title", "todo")
	before := ap("ledger", "log", "--json")
	r := claimIn(t, dir, "claim", "--goal", "g", "--todo", "t00", "--agent", "alice")
	if r.code != 1 || !strings.Contains(r.errOut, "no remote can arbitrate claims") || !strings.Contains(r.errOut, "--local") {
		t.Fatalf("exit %d: %s", r.code, r.errOut)
	}
	// A configured remote that does not answer is the same error.
	must(t, dir, "git", "remote", "add", "gone", filepath.Join(t.TempDir(), "missing.git"))
	os.WriteFile(filepath.Join(dir, "agentproto.toml"), []byte("[claims]\nremote = \"gone\"\n"), 0o644)
	r = claimIn(t, dir, "claim", "--goal", "g", "--todo", "t00", "--agent", "alice")
	if r.code != 1 || !strings.Contains(r.errOut, "remote gone did not answer") {
		t.Fatalf("exit %d: %s", r.code, r.errOut)
	}
	if ap("ledger", "log", "--json") != before {
		t.Fatal("a failed claim wrote to the ledger")
	}
	if r := claimIn(t, dir, "claim", "--goal", "g", "--todo", "t00", "--agent", "alice", "--local"); r.code != 0 || !strings.Contains(r.out, "on this clone only") {
		t.Fatalf("exit %d: %s%s", r.code, r.out, r.errOut)
	}
	ap("goal", "configure", "--goal-id", "g", "--supervisor-agent", "sup", "--execute")
	if got := observe(t, dir); got["alice/t00"] != "local-only" {
		t.Fatalf("packet states %v", got)
	}

	// Two clones: a remote claim, a local claim overlapping it in the other
	// clone (contested once synced), and a lease that ran out (expired).
	_, a, b := claimClones(t, 3)
	must(t, a, "git", "agentproto", "goal", "configure", "--goal-id", "g", "--supervisor-agent", "sup", "--execute")
	for _, c := range []struct {
		dir  string
		args []string
	}{
		{a, []string{"--todo", "t00", "--agent", "alice"}},
		{a, []string{"--todo", "t01", "--agent", "alice"}},
		{b, []string{"--todo", "t01", "--agent", "bob", "--local"}},
		{a, []string{"--todo", "t02", "--agent", "alice", "--lease", "1s"}},
	} {
		if r := claimIn(t, c.dir, append([]string{"claim", "--goal", "g"}, c.args...)...); r.code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, r.code, r.errOut)
		}
	}
	must(t, a, "git", "agentproto", "sync")
	must(t, b, "git", "agentproto", "sync")
	must(t, a, "git", "agentproto", "sync")
	time.Sleep(2100 * time.Millisecond)
	want := map[string]string{"alice/t00": "remote-held", "alice/t01": "contested", "bob/t01": "contested", "alice/t02": "expired"}
	for _, d := range []string{a, b} {
		got := observe(t, d)
		for k, v := range want {
			if got[k] != v {
				t.Fatalf("%s: packet states %v, want %v", d, got, want)
			}
		}
	}
}

// observe returns agent/todo -> arbiter state from the supervisor's packet.
func observe(t *testing.T, dir string) map[string]string {
	t.Helper()
	var p struct {
		Peers []struct {
			Agent  string `json:"agent"`
			Claims []struct{ Todo, Arbiter string }
		} `json:"peers"`
	}
	packet := must(t, dir, "git", "agentproto", "supervisor", "observe", "--goal-id", "g", "--agent-id", "sup")
	if err := json.Unmarshal([]byte(packet), &p); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, v := range p.Peers {
		for _, c := range v.Claims {
			got[v.Agent+"/"+c.Todo] = c.Arbiter
		}
	}
	return got
}

// benchRun runs a command of a benchmark in dir.
func benchRun(b *testing.B, home, dir string, args ...string) {
	b.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir, cmd.Env = dir, gitEnv(home)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%v: %v\n%s", args, err, out)
	}
}

func benchClone(b *testing.B) (home, dir string) {
	home, root := b.TempDir(), b.TempDir()
	remote, dir := filepath.Join(root, "remote.git"), filepath.Join(root, "a")
	benchRun(b, home, root, "git", "init", "-q", "--bare", "-b", "main", remote)
	benchRun(b, home, root, "git", "clone", "-q", remote, dir)
	benchRun(b, home, dir, "git", "commit", "-q", "--allow-empty", "-m", "initial")
	benchRun(b, home, dir, "git", "push", "-q", "origin", "main")
	for _, args := range [][]string{{"init"}, {"peer", "register", "alice", "--adapter", "scripted", "--capability", "session_interrupt"},
		{"goal", "new", "g", "--title", "Bench"}, {"todo", "add", "--goal", "g", "--id", "t", "--title", "todo"}} {
		benchRun(b, home, dir, append([]string{"git", "agentproto"}, args...)...)
	}
	return home, dir
}

// One claim and one release per op, each a compare-and-swap push of the
// claim ref to a local bare remote, plus its ledger record.
func BenchmarkClaimReleaseRemote(b *testing.B) {
	home, dir := benchClone(b)
	b.ResetTimer()
	for range b.N {
		benchRun(b, home, dir, "git", "agentproto", "todo", "claim", "--goal", "g", "--todo", "t", "--agent", "alice")
		benchRun(b, home, dir, "git", "agentproto", "todo", "release", "--goal", "g", "--todo", "t", "--agent", "alice")
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "claims/s")
}

// The floor under it: the same two ref updates as bare git pushes with a
// lease (create-only, then a delete), no lookup, no record.
func BenchmarkClaimReleaseGitPush(b *testing.B) {
	home, dir := benchClone(b)
	head, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		b.Fatal(err)
	}
	lease := "--force-with-lease=refs/x/t:" + strings.TrimSpace(string(head))
	b.ResetTimer()
	for range b.N {
		benchRun(b, home, dir, "git", "push", "-q", "--atomic", "--force-with-lease=refs/x/t:", "origin", "HEAD:refs/x/t")
		benchRun(b, home, dir, "git", "push", "-q", "--atomic", lease, "origin", ":refs/x/t")
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "claims/s")
}

// A remote that protects the claim refs refuses the push: exit 5 naming
// the ref, and nothing recorded.
func TestClaimRefusedByProtectedRemote(t *testing.T) {
	remote, a, _ := claimClones(t, 1)
	hook := "#!/bin/sh\nwhile read old new ref; do case $ref in refs/agentproto/claims/*) echo protected >&2; exit 1;; esac; done\n"
	if err := os.WriteFile(filepath.Join(remote, "hooks", "pre-receive"), []byte(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	before := must(t, a, "git", "agentproto", "ledger", "log", "--json")
	r := claimIn(t, a, "claim", "--goal", "g", "--todo", "t00", "--agent", "alice")
	if r.code != 5 || !strings.Contains(r.errOut, "refused the claim ref refs/agentproto/claims/g/t00") {
		t.Fatalf("exit %d: %s", r.code, r.errOut)
	}
	if must(t, a, "git", "agentproto", "ledger", "log", "--json") != before {
		t.Fatal("a refused claim wrote to the ledger")
	}
}
