package gitstore

import (
	"bytes"
	"encoding/binary"
	"sort"

	bolt "go.etcd.io/bbolt"
)

// idSpool holds the ids a rebuild reads until its end, when they are
// written in sorted order. Ids come in no order, so writing them batch by
// batch rewrote most of the ids bucket's pages in every batch; sorted, they
// are appended to the empty bucket in full pages. An entry takes about 25
// bytes: the id, the event's clock and its writer's number.
type idSpool struct {
	arena   []byte // per entry: id length (1 byte), id, lamport (8), writer number (2)
	offs    []uint32
	writers []string
	number  map[string]uint16
	full    bool // some ids were written by the caller
}

// add records that the event (lamport, writer, id) uses id. It reports
// false when the spool is full (64 K writers, 4 GB): the caller writes the
// id itself.
func (s *idSpool) add(id string, lamport uint64, writer string) bool {
	n, ok := s.number[writer]
	if !ok {
		if len(s.writers) >= 1<<16 {
			s.full = true
			return false
		}
		if s.number == nil {
			s.number = map[string]uint16{}
		}
		n = uint16(len(s.writers))
		s.number[writer] = n
		s.writers = append(s.writers, writer)
	}
	if len(id) > 255 || uint64(len(s.arena))+uint64(len(id))+11 > 1<<32-1 {
		s.full = true
		return false
	}
	s.offs = append(s.offs, uint32(len(s.arena)))
	s.arena = append(s.arena, byte(len(id)))
	s.arena = append(s.arena, id...)
	s.arena = binary.BigEndian.AppendUint64(s.arena, lamport)
	s.arena = binary.BigEndian.AppendUint16(s.arena, n)
	return true
}

func (s *idSpool) entry(i int) (id []byte, lamport uint64, writer string) {
	b := s.arena[s.offs[i]:]
	n := int(b[0])
	id, b = b[1:1+n], b[1+n:]
	return id, binary.BigEndian.Uint64(b), s.writers[binary.BigEndian.Uint16(b[8:])]
}

// less orders entries by id, then by the event's place in the ledger.
func (s *idSpool) less(a, b int) bool {
	ida, la, wa := s.entry(a)
	idb, lb, wb := s.entry(b)
	if c := bytes.Compare(ida, idb); c != 0 {
		return c < 0
	}
	if la != lb {
		return la < lb
	}
	return wa < wb
}

// write stores every id with the first event in ledger order that used
// it, in transactions of at most batch ids.
func (s *idSpool) write(db *bolt.DB, batch int) error {
	sort.Slice(s.offs, func(a, b int) bool { return s.less(a, b) })
	var last []byte
	for start := 0; start < len(s.offs); start += batch {
		end := min(start+batch, len(s.offs))
		err := db.Update(func(tx *bolt.Tx) error {
			ids := tx.Bucket(bucketIDs)
			ids.FillPercent = 1
			var mem slab // bbolt keeps what Put is given until the commit
			for i := start; i < end; i++ {
				id, lamport, writer := s.entry(i)
				if last != nil && bytes.Equal(id, last) {
					continue // a later event with the same id
				}
				last = id
				ref := appendOrderKey(mem.alloc(10 + len(writer))[:0], lamport, writer, "")
				if s.full {
					if old := ids.Get(id); old != nil && bytes.Compare(old, ref) <= 0 {
						continue
					}
				}
				if err := ids.Put(id, ref); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	s.arena, s.offs = nil, nil
	return nil
}
