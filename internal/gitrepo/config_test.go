package gitrepo

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestConfigAndRemotes(t *testing.T) {
	dir, repo := newHistory(t)
	if v, err := repo.ConfigValues("agentproto.unset"); err != nil || v != nil {
		t.Errorf("an unset key = %q, %v", v, err)
	}
	if _, err := repo.ConfigValues("nodot"); err == nil || !strings.Contains(err.Error(), "nodot") {
		t.Errorf("an invalid key: %v, want git's error naming it", err)
	}
	for _, v := range []string{"one", "two words", "multi\nline"} {
		if err := repo.AddConfigValue("agentproto.many", v); err != nil {
			t.Fatal(err)
		}
	}
	if v, err := repo.ConfigValues("agentproto.many"); err != nil || !reflect.DeepEqual(v, []string{"one", "two words", "multi\nline"}) {
		t.Errorf("ConfigValues = %q, %v", v, err)
	}
	if err := repo.AddConfigValue("nodot", "x"); err == nil {
		t.Error("AddConfigValue wrote an invalid key")
	}

	// A key set only in the user's configuration is no local value.
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(t.TempDir(), "gitconfig"))
	gitIn(t, dir, "config", "--global", "agentproto.switch", "global")
	if v, err := repo.ConfigValues("agentproto.switch"); err != nil || !reflect.DeepEqual(v, []string{"global"}) {
		t.Errorf("ConfigValues(switch) = %q, %v", v, err)
	}
	if v, err := repo.LocalConfigValues("agentproto.switch"); err != nil || v != nil {
		t.Errorf("LocalConfigValues of a global-only key = %q, %v", v, err)
	}
	gitIn(t, dir, "config", "--local", "agentproto.switch", "local")
	if v, err := repo.LocalConfigValues("agentproto.switch"); err != nil || !reflect.DeepEqual(v, []string{"local"}) {
		t.Errorf("LocalConfigValues(switch) = %q, %v", v, err)
	}
	if _, err := repo.LocalConfigValues("nodot"); err == nil || !strings.Contains(err.Error(), "nodot") {
		t.Errorf("LocalConfigValues(nodot): %v, want git's error naming it", err)
	}

	// A second repository is the remote: its refs as ls-remote lists them.
	if _, err := repo.RemoteURL("origin"); err == nil || !strings.Contains(err.Error(), "origin") {
		t.Errorf("RemoteURL of a missing remote: %v, want an error naming it", err)
	}
	other, _ := newHistory(t)
	gitIn(t, dir, "remote", "add", "origin", other)
	if u, err := repo.RemoteURL("origin"); err != nil || u != other {
		t.Errorf("RemoteURL = %q, %v; want %q", u, err, other)
	}
	refs, err := repo.RemoteRefs("origin", "refs/heads/left", "refs/heads/nope")
	if want := gitIn(t, other, "rev-parse", "left"); err != nil || len(refs) != 1 || refs[0] != (Ref{Name: "refs/heads/left", ID: want}) {
		t.Errorf("RemoteRefs = %+v, %v", refs, err)
	}
	if refs, err := repo.RemoteRefs("origin", "refs/heads/nope"); err != nil || len(refs) != 0 {
		t.Errorf("RemoteRefs(nope) = %+v, %v", refs, err)
	}
	if _, err := repo.RemoteRefs(dir + "/no-such-repo"); err == nil {
		t.Error("RemoteRefs of a repository that is not there answered")
	}
}

// TestPrefetchedConfigListIsTakenOnce: the listing started ahead is the
// configuration at that time and answers one ConfigList; the next one
// reads what was set after.
func TestPrefetchedConfigListIsTakenOnce(t *testing.T) {
	dir, repo := newHistory(t)
	gitIn(t, dir, "config", "agentproto.when", "before")
	repo.PrefetchConfigList()
	repo.PrefetchConfigList() // a second start while one waits changes nothing
	want := gitIn(t, dir, "config", "-z", "--list")
	aheadMu.Lock()
	started := ahead[*repo]
	aheadMu.Unlock()
	<-started.done // listed before the change below
	gitIn(t, dir, "config", "agentproto.when", "after")
	first, err := repo.ConfigList()
	if err != nil || string(first) != want {
		t.Fatalf("prefetched ConfigList = %q, %v; want the listing before the change %q", first, err, want)
	}
	second, err := repo.ConfigList()
	if err != nil || !strings.Contains(string(second), "agentproto.when\nafter") {
		t.Fatalf("the next ConfigList = %q, %v; want the configuration read afresh", second, err)
	}
	// A listing no call took is dropped when its caller is done with it.
	drop := repo.PrefetchConfigList()
	repo.PrefetchConfigList()() // the second start's drop leaves the first
	aheadMu.Lock()
	started = ahead[*repo]
	aheadMu.Unlock()
	if started == nil {
		t.Fatal("a second start's drop dropped the first start's listing")
	}
	<-started.done
	gitIn(t, dir, "config", "agentproto.when", "later")
	drop()
	third, err := repo.ConfigList()
	if err != nil || !strings.Contains(string(third), "agentproto.when\nlater") {
		t.Fatalf("ConfigList after the drop = %q, %v; want the configuration read afresh", third, err)
	}
}
