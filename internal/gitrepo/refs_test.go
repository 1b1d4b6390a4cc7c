package gitrepo

import (
	"reflect"
	"strings"
	"testing"
)

func TestRefs(t *testing.T) {
	dir, repo := newHistory(t)
	base, left := gitIn(t, dir, "rev-parse", "main"), gitIn(t, dir, "rev-parse", "left")
	gitIn(t, dir, "update-ref", "refs/heads/wt/p-a", left)
	gitIn(t, dir, "update-ref", "refs/heads/wt/p-b", base)
	gitIn(t, dir, "update-ref", "refs/heads/wt/px", base)
	gitIn(t, dir, "tag", "v1", base)

	for _, c := range []struct {
		patterns []string
		want     []string
	}{
		{[]string{"refs/heads/wt/p-*"}, []string{"refs/heads/wt/p-a", "refs/heads/wt/p-b"}},
		{[]string{"refs/heads/wt"}, []string{"refs/heads/wt/p-a", "refs/heads/wt/p-b", "refs/heads/wt/px"}},
		{[]string{"refs/heads/w"}, nil}, // whole components only
		{[]string{"refs/tags", "refs/heads/left"}, []string{"refs/heads/left", "refs/tags/v1"}},
	} {
		refs, err := repo.Refs(c.patterns...)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, r := range refs {
			names = append(names, r.Name)
			if want := gitIn(t, dir, "rev-parse", r.Name); r.ID != want {
				t.Errorf("%s: ID %s, want %s", r.Name, r.ID, want)
			}
		}
		if !reflect.DeepEqual(names, c.want) {
			t.Errorf("Refs(%q) = %q, want %q", c.patterns, names, c.want)
		}
	}

	// Compare-and-swap and compare-and-delete.
	if err := repo.UpdateRefLogged("refs/heads/wt/p-a", base, base, "moved by a test"); err == nil {
		t.Error("UpdateRefLogged moved a ref that was not at the old id")
	}
	if err := repo.UpdateRefLogged("refs/heads/wt/p-a", base, left, "moved by a test"); err != nil {
		t.Fatal(err)
	}
	if log := gitIn(t, dir, "reflog", "show", "--format=%gs", "-1", "refs/heads/wt/p-a"); log != "moved by a test" {
		t.Errorf("reflog says %q", log)
	}
	if err := repo.UpdateRefLogged("refs/heads/fresh", base, "", "made"); err != nil {
		t.Fatal(err)
	}
	if err := repo.UpdateRefLogged("refs/heads/fresh", left, "", "made again"); err == nil {
		t.Error("UpdateRefLogged with no old id overwrote an existing ref")
	}
	err := repo.DeleteRef("refs/heads/wt/p-a", left)
	if err == nil || !strings.Contains(err.Error(), "refs/heads/wt/p-a") {
		t.Errorf("DeleteRef at a stale id: %v, want an error naming the ref", err)
	}
	if !repo.HasCommit("refs/heads/wt/p-a") {
		t.Error("a ref that moved was deleted")
	}
	if err := repo.DeleteRef("refs/heads/wt/p-a", base); err != nil {
		t.Fatal(err)
	}
	if err := repo.DeleteRef("refs/heads/wt/p-b", ""); err != nil {
		t.Fatal(err)
	}
	if refs, _ := repo.Refs("refs/heads/wt"); len(refs) != 1 || refs[0].Name != "refs/heads/wt/px" {
		t.Errorf("after the deletes: %+v", refs)
	}
}
