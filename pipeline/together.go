package pipeline

import "sync"

// together runs independent reads at once and returns the first error in
// the order they are given. Each is a git process or a few; starting one
// costs milliseconds, mostly the kernel's and the dynamic loader's, so on
// more than one core their costs overlap instead of adding up.
func together(reads ...func() error) error {
	errs := make([]error, len(reads))
	var wg sync.WaitGroup
	for i, read := range reads {
		wg.Add(1)
		go func() {
			defer wg.Done()
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
