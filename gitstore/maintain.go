package gitstore

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"

	bolt "go.etcd.io/bbolt"
)

// Reindex builds the index again from git, into a new file that then
// replaces the old one at once: commands running meanwhile read the old
// file or the new one, never one half written. It returns the events read
// and the warnings met.
func (l *Ledger) Reindex() (int, Warnings, error) {
	path := indexPath(l.repo.CommonDir)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return 0, nil, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "index.db.rebuild-")
	if err != nil {
		return 0, nil, err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	var warn Warnings
	ix, err := openIndexFile(tmp.Name(), false)
	if err != nil {
		return 0, nil, err
	}
	err = l.refreshed(ix.db, &warn, func(*bolt.Tx, map[string]string) error { return nil })
	if cerr := ix.close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, warn, err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return 0, warn, err
	}
	n, w, err := l.Count()
	return n, append(warn, w...), err
}

// maintain packs loose ledger objects once enough have accumulated. It runs
// after the append is committed; a failure here loses nothing and is retried
// by a later append.
func (l *Ledger) maintain(ix *index, warn *Warnings) {
	if l.opts.AutoMaintenance < 0 {
		return
	}
	due := false
	ix.db.View(func(tx *bolt.Tx) error {
		due = getUint(tx.Bucket(bucketMeta), keyLoose) >= uint64(l.opts.AutoMaintenance)
		return nil
	})
	if !due {
		return
	}
	if err := l.maintainInBackground(); err != nil {
		warn.add("ledger maintenance: " + err.Error())
		return
	}
	ix.db.Update(func(tx *bolt.Tx) error {
		return putUint(tx.Bucket(bucketMeta), keyLoose, 0)
	})
}

// maintenanceArgs pack loose objects (an incremental repack, which leaves
// existing packs alone), then consolidate packs when git thinks there are
// too many. Neither writes .git/info/refs (update-server-info), which is
// not ours to touch and which verify watches as a place outside a work
// package's worktree.
var maintenanceArgs = [][]string{
	{"-c", "repack.updateServerInfo=false", "repack", "-d", "-n", "-q"},
	{"-c", "repack.updateServerInfo=false", "gc", "--auto", "--quiet"},
}

// Maintain runs the maintenance and waits for it.
func (l *Ledger) Maintain() error {
	for _, args := range maintenanceArgs {
		if _, err := l.repo.Git(args...); err != nil {
			return err
		}
	}
	return nil
}

// maintainInBackground starts the maintenance in a process of its own
// session and does not wait: a repack of a large ledger takes seconds, and
// an append must not pay them. git's own locks keep it safe beside other
// writers.
func (l *Ledger) maintainInBackground() error {
	script := "git " + strings.Join(maintenanceArgs[0], " ") + " && exec git " + strings.Join(maintenanceArgs[1], " ")
	cmd := l.repo.Command()
	cmd.Path, cmd.Args = "/bin/sh", []string{"sh", "-c", script}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, nil
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait() // reaped here while this process lives; by init after
	return nil
}
