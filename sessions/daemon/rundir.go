package daemon

import (
	"os"
	"path/filepath"

	"github.com/agentproto/agentproto/sessions"
)

// pluginSocketPrefix names the socket directories of a repository's
// adapters in the runtime dir (one per plugin: <prefix><random>), so that
// a killed adapter leaves its socket where the daemon cleans. Names stay
// short: the socket inside must fit the 108 bytes too.
func pluginSocketPrefix(common string) string { return sessions.RepoKey(common)[:8] + "-" }

// pluginSocketsFit reports whether a plugin socket in the runtime dir
// stays under the limit: go-plugin adds /plugin<10 digits> to our
// /<prefix><10 digits>.
func pluginSocketsFit(common string) bool {
	return len(sessions.RuntimeDir())+1+len(pluginSocketPrefix(common))+10+len("/plugin")+10 < 108
}

// removePluginSockets removes the socket directories of a repository's
// adapters; the daemon does it at start, when none of them runs.
func removePluginSockets(common string) {
	dirs, _ := filepath.Glob(filepath.Join(sessions.RuntimeDir(), pluginSocketPrefix(common)+"*"))
	for _, d := range dirs {
		os.RemoveAll(d)
	}
}
