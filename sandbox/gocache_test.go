package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A judged run in a HOME with no ~/.cache yet gets go's build cache made
// and writable when go is on its PATH, and nothing made when it is not.
func TestJudgedPolicyMakesGosBuildCache(t *testing.T) {
	home, bin := t.TempDir(), t.TempDir()
	env := []string{"HOME=" + home, "PATH=" + bin}
	judgedPolicy(t.TempDir(), env, t.TempDir(), JudgedConfig{})
	cache := filepath.Join(home, ".cache", "go-build")
	if _, err := os.Stat(cache); err == nil {
		t.Fatal("no go on PATH, yet the cache was made")
	}
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := judgedPolicy(t.TempDir(), env, t.TempDir(), JudgedConfig{})
	if fi, err := os.Stat(cache); err != nil || !fi.IsDir() || !slices.Contains(p.Write, cache) {
		t.Fatalf("go on PATH: cache %v, writable %v", err, p.Write)
	}
}

// GOCACHE names the cache; one that is HOME itself or / is never made
// writable, and GOCACHE=off asks for none.
func TestGoBuildCacheHonoursGOCACHE(t *testing.T) {
	home, bin := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(bin, "go"), []byte("#!/bin/sh\n"), 0o755)
	own := filepath.Join(t.TempDir(), "gocache")
	for _, c := range []struct{ gocache, want string }{
		{own, own},
		{home, ""},
		{"/", ""},
		{"off", ""},
		{"rel/cache", ""},
	} {
		env := []string{"HOME=" + home, "PATH=" + bin, "GOCACHE=" + c.gocache}
		if got := goBuildCache(env); got != c.want {
			t.Errorf("GOCACHE=%s: %q, want %q", c.gocache, got, c.want)
		}
	}
}
