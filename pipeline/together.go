package pipeline

import (
	"runtime"
	"sync"
)

// together runs independent reads at once and returns the first error in
// the order they are given. Each is a git process or a few; starting one
// costs milliseconds, mostly the kernel's and the dynamic loader's, so on
// more than one core their costs overlap instead of adding up.
func together(reads ...func() error) error {
	return togetherAtMost(len(reads), reads...)
}

// manyAtOnce bounds the git processes a snapshot of many worktrees runs
// at once: a few per core keeps the cores busy while others wait on the
// disk, without a process for every worktree of a large plan at once.
func manyAtOnce() int { return 2 * runtime.NumCPU() }

// togetherAtMost is together with at most limit reads running at a time.
func togetherAtMost(limit int, reads ...func() error) error {
	errs := make([]error, len(reads))
	slots := make(chan struct{}, max(limit, 1))
	var wg sync.WaitGroup
	for i, read := range reads {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			errs[i] = read()
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
