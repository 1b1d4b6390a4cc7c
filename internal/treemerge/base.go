package treemerge

import (
	"container/heap"

	"github.com/go-git/go-git/v5/plumbing"
)

// The marks of a merge-base walk, as git's paint_down_to_common names
// them: reached from one side, from the other, below a common ancestor
// already found, already in the result.
const (
	fromOne uint8 = 1 << iota
	fromTwo
	stale
	found
)

// MergeBase returns the one best common ancestor of commits one and two,
// found as git finds it: walk down from both, newest first, and stop
// when every commit left to visit lies below a common ancestor. Any
// number of best ancestors but one (unrelated histories, criss-cross
// merges) is ErrUnsure: git merges those with a virtual base.
func (s *Store) MergeBase(one, two plumbing.Hash) (plumbing.Hash, error) {
	if s.unsure {
		return plumbing.ZeroHash, ErrUnsure
	}
	if one == two {
		return one, nil
	}
	a, err := s.commit(one)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	b, err := s.commit(two)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	s.walk++
	w := &walk{n: s.walk}
	w.mark(a, fromOne)
	w.push(a)
	w.mark(b, fromTwo)
	w.push(b)
	var results []*commit
	for w.live > 0 {
		c := w.pop()
		marks := c.flags & (fromOne | fromTwo | stale)
		if marks == fromOne|fromTwo {
			if c.flags&found == 0 {
				c.flags |= found
				results = append(results, c)
			}
			marks |= stale // what lies below a common ancestor is no better
		}
		if err := s.load(c); err != nil {
			return plumbing.ZeroHash, err
		}
		for _, p := range c.parents {
			if w.flags(p)&marks == marks {
				continue
			}
			w.mark(p, marks)
			w.push(p)
		}
	}
	var best []*commit
	for _, c := range results {
		if c.flags&stale == 0 {
			best = append(best, c)
		}
	}
	if len(best) != 1 {
		return plumbing.ZeroHash, ErrUnsure
	}
	return best[0].id, nil
}

// walk is one merge-base walk: a queue of commits, newest first, and the
// number of queued entries not yet below a common ancestor (git scans the
// queue for one; counting keeps a long walk linear).
type walk struct {
	n     uint32
	queue commitQueue
	seq   int
	live  int
}

// flags returns c's marks in this walk.
func (w *walk) flags(c *commit) uint8 {
	if c.walk != w.n {
		return 0
	}
	return c.flags
}

// mark adds marks to c, keeping the count of live entries.
func (w *walk) mark(c *commit, marks uint8) {
	if c.walk != w.n {
		c.walk, c.flags, c.inQueue = w.n, 0, 0
	}
	if c.flags&stale == 0 && marks&stale != 0 {
		w.live -= c.inQueue
	}
	c.flags |= marks
}

func (w *walk) push(c *commit) {
	c.inQueue++
	if c.flags&stale == 0 {
		w.live++
	}
	w.seq++
	heap.Push(&w.queue, queued{c, w.seq})
}

func (w *walk) pop() *commit {
	c := heap.Pop(&w.queue).(queued).c
	c.inQueue--
	if c.flags&stale == 0 {
		w.live--
	}
	return c
}

// queued is a commit in the queue; seq keeps commits of one date in the
// order they came, as git's queue does.
type queued struct {
	c   *commit
	seq int
}

type commitQueue []queued

func (q commitQueue) Len() int { return len(q) }
func (q commitQueue) Less(i, j int) bool {
	if q[i].c.date != q[j].c.date {
		return q[i].c.date > q[j].c.date
	}
	return q[i].seq < q[j].seq
}
func (q commitQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *commitQueue) Push(x any)   { *q = append(*q, x.(queued)) }
func (q *commitQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}
