package mcp

import (
	"os"
	"path/filepath"
	"time"
)

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
		if !ent.IsDir() || !jobID().MatchString(ent.Name()) {
			continue
		}
		j := &job{dir: filepath.Join(dir, ent.Name())}
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
