package gitstore

import (
	"syscall"

	bolt "go.etcd.io/bbolt"
)

// dropMapped tells the kernel this process is done with the index pages
// it has read so far. They stay in the page cache and fault back in when
// read again, but stop counting as this process's memory: a read of the
// whole ledger otherwise holds the whole index resident, 200 MB at a
// million events. bbolt maps the file read-only and writes through the
// file, so nothing in the mapping is lost.
func dropMapped(tx *bolt.Tx) {
	syscall.Syscall(syscall.SYS_MADVISE, tx.DB().Info().Data, uintptr(tx.Size()), syscall.MADV_DONTNEED)
}
