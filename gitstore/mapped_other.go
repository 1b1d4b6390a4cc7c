//go:build !linux

package gitstore

import bolt "go.etcd.io/bbolt"

// dropMapped is a no-op where the index's pages are not let go of by hand.
func dropMapped(*bolt.Tx) {}
