package worktree

import (
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

const (
	treeHex   = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
	parentHex = "d670460b4b4aece5915caf5c68d12f560a9fe3e4"
)

var commitSamples = []string{
	"tree " + treeHex + "\nauthor A <a@b> 1 +0000\ncommitter A <a@b> 1 +0000\n\nmessage\n",
	"tree " + treeHex + "\nparent " + parentHex + "\nparent " + parentHex + "\nauthor A <a@b> 1 +0000\n\nm",
	"tree " + treeHex + "\ngpgsig -----BEGIN PGP SIGNATURE-----\n tree " + parentHex + "\n -----END PGP SIGNATURE-----\n\nm\n",
	"tree " + treeHex + "\nauthor A <a@b> 1 +0000\nparent nonsense\n\nm\n", // a late parent is dropped
	"tree " + treeHex,
	"tree " + treeHex + "\n",
	"tree " + treeHex + "\n\ntree " + parentHex + "\n",
	"",
	"\n",
	"\ntree " + treeHex + "\n",
	"parent " + parentHex + "\ntree " + treeHex + "\n",
	"tree\n",
	"tree " + treeHex[:39] + "\n",
	"tree " + strings.ToUpper(treeHex) + "\n",
	"tree " + treeHex + " \n",
	"tree  " + treeHex + "\n",
	"tree " + treeHex + "\r\n",
	"tree " + treeHex + "\nparent\n",
	"tree " + treeHex + "\nparent " + parentHex + "x\n",
	"tree " + treeHex + "\nparent " + parentHex + "\nparent zz\n",
	"tree " + treeHex + "\nparent " + parentHex,
	"tree " + treeHex + "\nparentx " + parentHex + "\n",
}

// The tree read by hand is go-git's: the same hash for a commit it
// decodes, the same error for one it refuses.
func TestCommitTreeIsGoGits(t *testing.T) {
	for _, raw := range commitSamples {
		checkCommitTree(t, plumbing.CommitObject, raw)
	}
	checkCommitTree(t, plumbing.TreeObject, commitSamples[0])
}

func FuzzCommitTree(f *testing.F) {
	for _, raw := range commitSamples {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw string) { checkCommitTree(t, plumbing.CommitObject, raw) })
}

func checkCommitTree(t *testing.T, typ plumbing.ObjectType, raw string) {
	t.Helper()
	obj := &plumbing.MemoryObject{}
	obj.SetType(typ)
	obj.Write([]byte(raw))
	got, gotErr := commitTreeOf(obj)
	c, wantErr := object.DecodeCommit(nil, obj)
	switch {
	case (gotErr == nil) != (wantErr == nil):
		t.Fatalf("%s %q: error %v, go-git's %v", typ, raw, gotErr, wantErr)
	case wantErr != nil && gotErr.Error() != wantErr.Error():
		t.Fatalf("%s %q: error %q, go-git's %q", typ, raw, gotErr, wantErr)
	case wantErr == nil && got != c.TreeHash:
		t.Fatalf("%s %q: tree %s, go-git's %s", typ, raw, got, c.TreeHash)
	}
}
