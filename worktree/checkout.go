package worktree

import (
	"bufio"
	"errors"
	"os"
	"path"
	"runtime"
	"sync"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"golang.org/x/sys/unix"

	"github.com/agentproto/agentproto/internal/gcfloor"
	"github.com/agentproto/agentproto/internal/gitobj"
)

// openStorage opens the common git dir with descriptors kept open: without
// it go-git reopens the pack for every object it reads, which dominated
// checkout time.
func openStorage(common string) *filesystem.Storage {
	return filesystem.NewStorageWithOptions(gitobj.MmapFS{Filesystem: osfs.New(common)}, cache.NewObjectLRUDefault(),
		// Alternates name absolute paths (or paths relative to the objects
		// directory, resolved by our own pack reader); go-git needs a
		// filesystem rooted at / to follow them to loose objects.
		filesystem.Options{KeepDescriptors: true, LargeObjectThreshold: streamOver, AlternatesFS: osfs.New("/")})
}

// packStorer serves commits and trees from the mapped packs, and anything
// they do not hold from go-git's storage.
type packStorer struct {
	*filesystem.Storage
	r *gitobj.Reader
}

func (s *packStorer) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	typ, data, found, err := s.r.Read(h, nil)
	if err != nil {
		return nil, err
	}
	if !found {
		return s.Storage.EncodedObject(t, h)
	}
	if t != plumbing.AnyObject && typ != t {
		return nil, plumbing.ErrObjectNotFound
	}
	o := &plumbing.MemoryObject{}
	o.SetType(typ)
	o.Write(data)
	return o, nil
}

// treeEntry is one file of the tree to check out.
type treeEntry struct {
	path string
	hash plumbing.Hash
	mode filemode.FileMode
	conv conversion // what git would do to its content on checkout
}

// checkoutTree writes the files of plan under dir and returns the index
// entries with their stat data, so that git sees the tree clean without
// re-reading a file. Batches of files of one directory go to several
// workers, each with its own object reader over the shared mapped packs
// (and, for what they lack, its own go-git storage: those are not safe for
// concurrent use); they write with plain system calls relative to a
// descriptor of the directory, never following a symlink (see dirMaker).
// The caller removes what was written on failure. Closing interrupted
// stops the workers.
func checkoutTree(st *filesystem.Storage, packs *gitobj.PackSet, common, dir string, plan *treePlan, interrupted <-chan struct{}) ([]*index.Entry, error) {
	// Checkout allocates per blob and finishes in well under a second;
	// collecting garbage during it costs more than the memory it frees.
	defer gcfloor.Pause()()

	dirs, err := newDirMaker(dir)
	if err != nil {
		return nil, err
	}
	defer dirs.Close()
	jobs := make(chan []treeEntry, 64)
	stop := make(chan struct{})
	var stopOnce sync.Once
	halt := func() { stopOnce.Do(func() { close(stop) }) }
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-interrupted:
			halt()
		case <-done:
		}
	}()

	workers := runtime.GOMAXPROCS(0) + 1
	results := make([][]*index.Entry, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			br := &blobReader{common: common, packs: gitobj.NewReader(packs)}
			defer br.Close()
			for batch := range jobs {
				if errs[w] != nil {
					continue // drain so the sender can finish
				}
				select {
				case <-stop:
					continue // another worker failed, or an interrupt: drain
				default:
				}
				if err := writeBatch(br, dirs, batch, &results[w]); err != nil {
					errs[w] = err
					halt()
				}
			}
		}(w)
	}
	sendBatches(plan.files, jobs, stop)
	close(jobs)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	select {
	case <-interrupted:
		return nil, errInterrupted
	default:
	}
	var out []*index.Entry
	for _, r := range results {
		out = append(out, r...)
	}
	return out, nil
}

var errInterrupted = errors.New("interrupted")

// batchSize bounds a batch of files of one directory given to a worker.
const batchSize = 32

// sendBatches sends files to jobs until stop closes, in batches of one
// directory each: files of a directory created by several workers at once
// contend on the directory's lock in the kernel.
func sendBatches(files []treeEntry, jobs chan<- []treeEntry, stop <-chan struct{}) {
	for len(files) > 0 {
		n := 1
		d := path.Dir(files[0].path)
		for n < len(files) && n < batchSize && path.Dir(files[n].path) == d {
			n++
		}
		select {
		case jobs <- files[:n]:
			files = files[n:]
		case <-stop:
			return
		}
	}
}

// writeBatch writes files of one directory through a descriptor of it.
func writeBatch(br *blobReader, dirs *dirMaker, batch []treeEntry, out *[]*index.Entry) error {
	fd, err := dirs.open(path.Dir(batch[0].path))
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	for _, e := range batch {
		ie, err := writeEntry(br, fd, e)
		if err != nil {
			return err
		}
		*out = append(*out, ie)
	}
	return nil
}

// writeIndex writes the index through "index.lock" and a rename, as git
// does, so a reader never sees half an index.
func writeIndex(path string, entries []*index.Entry) error {
	idx := &index.Index{Version: 2, Entries: entries}
	lock := path + ".lock"
	f, err := os.OpenFile(lock, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	if err := index.NewEncoder(bw).Encode(idx); err != nil {
		f.Close()
		os.Remove(lock)
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		os.Remove(lock)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(lock)
		return err
	}
	return os.Rename(lock, path)
}
