package secrets

import "strings"

// Variables a build or test needs to find its tools, caches and locale.
// Everything else is left out unless [gates] pass_env names it.
var (
	passNames = setOf(
		"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "COLORTERM", "NO_COLOR", "CI",
		"LANG", "LANGUAGE", "TZ", "TMPDIR", "TEMP", "TMP",
		"SSL_CERT_FILE", "SSL_CERT_DIR",
		"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
		// Go
		"GOPATH", "GOROOT", "GOBIN", "GOCACHE", "GOMODCACHE", "GOENV", "GOWORK", "GOTMPDIR",
		"GOFLAGS", "GOPROXY", "GOPRIVATE", "GONOPROXY", "GONOSUMDB", "GOSUMDB", "GOINSECURE",
		"GOTOOLCHAIN", "GOTELEMETRY", "GOCOVERDIR", "GOOS", "GOARCH", "GOAMD64", "GOARM",
		"GOARM64", "GOEXPERIMENT", "GODEBUG", "GOMAXPROCS", "GOGC", "GOMEMLIMIT",
		// C toolchains and other languages' homes
		"CC", "CXX", "AR", "CFLAGS", "CXXFLAGS", "LDFLAGS", "PKG_CONFIG_PATH", "LD_LIBRARY_PATH",
		"CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN", "RUSTFLAGS",
		"NODE_PATH", "NVM_DIR", "JAVA_HOME", "GRADLE_USER_HOME", "PYTHONPATH", "VIRTUAL_ENV", "CONDA_PREFIX",
	)
	passPrefixes = []string{"LC_", "XDG_", "CGO_", "GIT_"}
	// gitRepoVars point git at a repository: a gate or hook runs git in its
	// own worktree, and an inherited GIT_DIR would send it elsewhere.
	gitRepoVars = setOf("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR",
		"GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE", "GIT_PREFIX")
)

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// ChildEnv returns the environment of a command run on the user's behalf
// (a gate, an e2e command, a worktree hook) from environ: the variables a
// build needs and those the policy passes. Never passed: the variables
// holding our own tokens, other secret-named variables unless the policy
// names them exactly, and any variable whose value holds a known secret
// (a GIT_CONFIG_VALUE_0 carrying an Authorization header, a proxy URL
// with a token in it).
func (s *Set) ChildEnv(environ []string) []string {
	env := []string{}
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || s.own[name] || gitRepoVars[name] {
			continue
		}
		exact := s.passedExactly(name)
		switch {
		case exact:
		case s.secret[name] || LooksSecret(name):
			continue
		case !passNames[name] && !hasPrefix(name, passPrefixes) && !s.passedByPrefix(name):
			continue
		case len(s.Find(value)) > 0:
			continue
		}
		env = append(env, kv)
	}
	return env
}

func (s *Set) passedExactly(name string) bool {
	for _, p := range s.policy.PassEnv {
		if p == name {
			return true
		}
	}
	return false
}

func (s *Set) passedByPrefix(name string) bool {
	for _, p := range s.policy.PassEnv {
		if pre, ok := strings.CutSuffix(p, "*"); ok && strings.HasPrefix(name, pre) {
			return true
		}
	}
	return false
}

func hasPrefix(name string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
