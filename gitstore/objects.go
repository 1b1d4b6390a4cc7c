package gitstore

import (
	"bytes"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/agentproto/agentproto/internal/gitobj"
)

// Object types the ledger writes.
const (
	objCommit = plumbing.CommitObject
	objTree   = plumbing.TreeObject
	objBlob   = plumbing.BlobObject
)

// emptyTreeOID is the id of the tree with no entries, which plain events use.
const emptyTreeOID = gitobj.EmptyTree

// object is a git object ready to be written (gitobj does the encoding),
// with its id at hand as the ledger uses it.
type object struct {
	gitobj.Object
	oid [20]byte
}

func newObject(typ plumbing.ObjectType, body []byte) object { return wrap(gitobj.New(typ, body)) }

func wrap(o gitobj.Object) object { return object{Object: o, oid: o.ID} }

func (o object) hex() string { return o.Hex() }

// treeObject builds a flat tree of blobs, the attachments of one event.
func treeObject(entries map[string][20]byte) object { return wrap(gitobj.FlatTree(entries)) }

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

func (w objectWriter) writeLoose(o object) error {
	return gitobj.Writer{Dir: w.dir}.WriteLoose(o.Object)
}

func (w objectWriter) writePack(objs []object) error {
	plain := make([]gitobj.Object, len(objs))
	for i, o := range objs {
		plain[i] = o.Object
	}
	return gitobj.Writer{Dir: w.dir}.WritePack(plain)
}
