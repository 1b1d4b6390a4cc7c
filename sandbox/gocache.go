package sandbox

import (
	"os"
	"path/filepath"
)

// goBuildCache is the build cache a go command run with env uses, made
// now when go is on env's PATH. go refuses to build without its cache,
// and a rule holds only a path that exists: a user's first Go gate in the
// sandbox failed with "failed to initialize build cache" where ~/.cache
// did not exist yet. "" when go is not there or the place is not one a
// cache may be (relative, /, or one holding HOME).
func goBuildCache(env []string) string {
	dir := lookup(env, "GOCACHE")
	if dir == "off" {
		return ""
	}
	if dir == "" {
		base := lookup(env, "XDG_CACHE_HOME")
		if !filepath.IsAbs(base) {
			home := lookup(env, "HOME")
			if !filepath.IsAbs(home) {
				return ""
			}
			base = filepath.Join(home, ".cache")
		}
		dir = filepath.Join(base, "go-build")
	}
	dir = filepath.Clean(dir)
	home := filepath.Clean(lookup(env, "HOME"))
	if !filepath.IsAbs(dir) || dir == "/" || within(dir, home) || !onPath(env, "go") {
		return ""
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ""
	}
	return dir
}

// onPath reports whether an executable file named name is in a directory
// of env's PATH.
func onPath(env []string, name string) bool {
	for _, d := range filepath.SplitList(lookup(env, "PATH")) {
		if !filepath.IsAbs(d) {
			continue
		}
		if fi, err := os.Stat(filepath.Join(d, name)); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return true
		}
	}
	return false
}
