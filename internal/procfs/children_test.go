package procfs

import (
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"
)

// The walk down the children lists finds what the scan of every process
// finds: children, grandchildren, and no zombie.
func TestDescendantsByChildrenMatchesTheScan(t *testing.T) {
	if !haveChildren() {
		t.Skip("this kernel has no /proc/PID/task/TID/children")
	}
	tree := exec.Command("sh", "-c", `sh -c 'sleep 30; :' & sleep 30; :`)
	if err := tree.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { tree.Process.Kill(); tree.Wait() }()
	zombie := exec.Command("true")
	if err := zombie.Start(); err != nil {
		t.Fatal(err)
	}
	defer zombie.Wait()
	self := os.Getpid()
	// Wait for the tree to be whole (sh, sh, two sleeps) and the zombie
	// to be one.
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		st, err := ReadStat(zombie.Process.Pid)
		if len(descendantsByScan(tree.Process.Pid)) == 3 && err == nil && st.State == 'Z' {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, root := range []int{tree.Process.Pid, self} {
		byChildren, ok := descendantsByChildren(root)
		byScan := descendantsByScan(root)
		slices.Sort(byChildren)
		slices.Sort(byScan)
		if !ok || !slices.Equal(byChildren, byScan) {
			t.Errorf("below %d: children lists give %v, the scan %v", root, byChildren, byScan)
		}
	}
	if got, _ := descendantsByChildren(tree.Process.Pid); len(got) != 3 {
		t.Errorf("below the tree's sh: %v, want its child sh and the two sleeps", got)
	}
	if got, _ := descendantsByChildren(self); slices.Contains(got, zombie.Process.Pid) || !slices.Contains(got, tree.Process.Pid) {
		t.Errorf("below this process: %v, want the tree's sh (%d) and not the zombie (%d)", got, tree.Process.Pid, zombie.Process.Pid)
	}
}
