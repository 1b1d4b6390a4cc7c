package sessions

import (
	"encoding/json"
	"os"

	"github.com/agentproto/agentproto/internal/procfs"
)

// Enclosing names the live session whose processes this process belongs
// to: its process group is a session's, or one of its ancestors leads or
// belongs to one. A command an agent runs is found so even when it
// dropped AGENTPROTO_SESSION from its environment; one that detached
// itself from the tree (setsid, then re-parented to init) is not, which
// only a sandbox around the agent prevents.
func (s View) Enclosing() (string, bool) {
	entries, err := os.ReadDir(s.Dir)
	if err != nil {
		return "", false
	}
	boot := BootID()
	groups := map[int]struct {
		id    string
		start uint64
	}{}
	for _, e := range entries {
		if !idPattern.MatchString(e.Name()) {
			continue
		}
		b, err := os.ReadFile(s.GroupPath(e.Name()))
		var g Group
		if err != nil || json.Unmarshal(b, &g) != nil || g.Pgid <= 1 || g.Boot != boot {
			continue
		}
		groups[g.Pgid] = struct {
			id    string
			start uint64
		}{e.Name(), g.Start}
	}
	if len(groups) == 0 {
		return "", false
	}
	// Up the tree from this process; a loop or a very deep tree ends it.
	for pid, steps := os.Getpid(), 0; pid > 1 && steps < 256; steps++ {
		st, err := procfs.ReadStat(pid)
		if err != nil {
			return "", false
		}
		if g, ok := groups[st.Pgrp]; ok && st.Start >= g.start {
			return g.id, true
		}
		pid = st.PPid
	}
	return "", false
}
