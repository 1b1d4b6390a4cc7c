package gitstore

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
)

// Object types as numbered in pack entries.
const (
	objCommit = 1
	objTree   = 2
	objBlob   = 3
)

var typeNames = map[int]string{objCommit: "commit", objTree: "tree", objBlob: "blob"}

// emptyTreeOID is the id of the tree with no entries, which plain events use.
const emptyTreeOID = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// object is a git object ready to be written, with its id computed.
type object struct {
	typ  int
	body []byte
	oid  [20]byte
}

func newObject(typ int, body []byte) object {
	h := sha1.New()
	fmt.Fprintf(h, "%s %d\x00", typeNames[typ], len(body))
	h.Write(body)
	o := object{typ: typ, body: body}
	copy(o.oid[:], h.Sum(nil))
	return o
}

func (o object) hex() string { return hex.EncodeToString(o.oid[:]) }

// treeObject builds a flat tree of blobs; git wants entries sorted by name.
func treeObject(entries map[string][20]byte) object {
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	sort.Strings(names)
	var b bytes.Buffer
	for _, n := range names {
		oid := entries[n]
		b.WriteString("100644 ")
		b.WriteString(n)
		b.WriteByte(0)
		b.Write(oid[:])
	}
	return newObject(objTree, b.Bytes())
}

// commitObject builds an event commit. Author and committer are the ledger
// writer, dated with the event time, so the commit is a pure function of the
// event and its parent.
func commitObject(tree, parent, writer string, unix int64, message []byte) object {
	var b bytes.Buffer
	b.WriteString("tree " + tree + "\n")
	if parent != "" {
		b.WriteString("parent " + parent + "\n")
	}
	who := "agentproto <" + writer + "@agentproto> " + strconv.FormatInt(unix, 10) + " +0000\n"
	b.WriteString("author " + who)
	b.WriteString("committer " + who)
	b.WriteByte('\n')
	b.Write(message)
	return newObject(objCommit, b.Bytes())
}

// objectWriter writes objects into a repository's object store.
type objectWriter struct {
	dir string // <common>/objects
}

// writeLoose stores one object as a loose file. Writing to a temporary name
// and renaming means a reader never sees a partial object.
func (w objectWriter) writeLoose(o object) error {
	h := o.hex()
	dir := filepath.Join(w.dir, h[:2])
	path := filepath.Join(dir, h[2:])
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var buf bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&buf, zlib.BestSpeed)
	fmt.Fprintf(zw, "%s %d\x00", typeNames[o.typ], len(o.body))
	zw.Write(o.body)
	if err := zw.Close(); err != nil {
		return err
	}
	return writeFileAtomic(path, buf.Bytes(), 0o444)
}

// writePack stores many objects as one pack and its index, which is far
// cheaper than one file per object and needs no repack later.
func (w objectWriter) writePack(objs []object) error {
	packDir := filepath.Join(w.dir, "pack")
	if err := os.MkdirAll(packDir, 0o755); err != nil {
		return err
	}
	seen := make(map[[20]byte]bool, len(objs))
	uniq := objs[:0:0]
	for _, o := range objs {
		if !seen[o.oid] {
			seen[o.oid] = true
			uniq = append(uniq, o)
		}
	}
	pack, entries, err := encodePack(uniq)
	if err != nil {
		return err
	}
	sum := pack[len(pack)-20:]
	idx := encodePackIndex(entries, sum)
	base := filepath.Join(packDir, "pack-"+hex.EncodeToString(sum))
	// The pack must be in place before its index: git finds packs by index.
	if err := writeFileAtomic(base+".pack", pack, 0o444); err != nil {
		return err
	}
	return writeFileAtomic(base+".idx", idx, 0o444)
}

type packEntry struct {
	oid    [20]byte
	offset uint64
	crc    uint32
}

func encodePack(objs []object) ([]byte, []packEntry, error) {
	var buf bytes.Buffer
	buf.WriteString("PACK")
	binary.Write(&buf, binary.BigEndian, uint32(2))
	binary.Write(&buf, binary.BigEndian, uint32(len(objs)))
	entries := make([]packEntry, 0, len(objs))
	zw, _ := zlib.NewWriterLevel(nil, zlib.BestSpeed)
	for _, o := range objs {
		start := buf.Len()
		if start >= 1<<31 {
			return nil, nil, fmt.Errorf("pack would exceed 2 GiB; append in smaller batches")
		}
		size := uint64(len(o.body))
		c := byte(o.typ<<4) | byte(size&0x0f)
		size >>= 4
		for size > 0 {
			buf.WriteByte(c | 0x80)
			c = byte(size & 0x7f)
			size >>= 7
		}
		buf.WriteByte(c)
		zw.Reset(&buf)
		zw.Write(o.body)
		if err := zw.Close(); err != nil {
			return nil, nil, err
		}
		entries = append(entries, packEntry{
			oid:    o.oid,
			offset: uint64(start),
			crc:    crc32.ChecksumIEEE(buf.Bytes()[start:]),
		})
	}
	sum := sha1.Sum(buf.Bytes())
	buf.Write(sum[:])
	return buf.Bytes(), entries, nil
}

// encodePackIndex writes a version 2 pack index.
func encodePackIndex(entries []packEntry, packSum []byte) []byte {
	sort.Slice(entries, func(i, j int) bool { return bytes.Compare(entries[i].oid[:], entries[j].oid[:]) < 0 })
	var buf bytes.Buffer
	buf.Write([]byte{0xff, 't', 'O', 'c', 0, 0, 0, 2})
	var fanout [256]uint32
	for _, e := range entries {
		fanout[e.oid[0]]++
	}
	var total uint32
	for i := range fanout {
		total += fanout[i]
		binary.Write(&buf, binary.BigEndian, total)
	}
	for _, e := range entries {
		buf.Write(e.oid[:])
	}
	for _, e := range entries {
		binary.Write(&buf, binary.BigEndian, e.crc)
	}
	for _, e := range entries {
		binary.Write(&buf, binary.BigEndian, uint32(e.offset))
	}
	buf.Write(packSum)
	sum := sha1.Sum(buf.Bytes())
	buf.Write(sum[:])
	return buf.Bytes()
}

// writeFileAtomic writes data under a temporary name in the same directory
// and renames it into place.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	f, err := createInDir(filepath.Dir(path), "tmp_obj_")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Chmod(tmp, perm); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// createInDir creates a temporary file in dir, making dir again if git
// removed it meanwhile: gc and pack-refs delete directories they empty.
func createInDir(dir, prefix string) (*os.File, error) {
	for attempt := 0; ; attempt++ {
		f, err := os.CreateTemp(dir, prefix)
		if err == nil || !errors.Is(err, fs.ErrNotExist) || attempt == 10 {
			return f, err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}
}
