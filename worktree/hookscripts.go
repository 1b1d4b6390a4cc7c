package worktree

import (
	"bufio"
	"bytes"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/google/shlex"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/internal/repopath"
)

// Trust covers what runs, not only the command text: "sh setup.sh" runs
// whatever setup.sh holds at the base. So every word of a hook command (and
// of an env value, BASH_ENV being one) that names a file or directory of
// the base tree is part of the trusted content, by its object id: a blob id
// for a file, a tree id for a directory (which changes when anything
// beneath it does). A few commands read a file nobody names; those files
// count too.

// implicitFiles are the files a command reads by default when it is run
// without naming one.
var implicitFiles = map[string][]string{
	"make":  {"GNUmakefile", "makefile", "Makefile"},
	"gmake": {"GNUmakefile", "makefile", "Makefile"},
	"npm":   {"package.json"},
	"pnpm":  {"package.json"},
	"yarn":  {"package.json"},
	"just":  {"justfile", "Justfile", ".justfile"},
}

// maxLinkRounds bounds how far hook scripts' symlinks are followed.
const maxLinkRounds = 8

// commandWords splits a shell command into the words that may name files.
// Quoting is read as the shell reads it; operators (;, &&, |, redirections,
// subshells) separate words even unspaced, and "--file=x" or "VAR=x" offer
// the part after "=" as well.
func commandWords(cmd string) []string {
	words, err := shlex.Split(cmd)
	if err != nil {
		words = strings.Fields(cmd) // unbalanced quotes: the shell will fail too
	}
	var out []string
	for _, w := range words {
		for _, part := range strings.FieldsFunc(w, func(r rune) bool { return strings.ContainsRune(";&|<>()`$", r) }) {
			subs := []string{part}
			if strings.ContainsAny(part, " \t\n") {
				// A quoted word: a file name with spaces, or a command
				// inside "$(...)"; offer both readings.
				subs = append(subs, strings.Fields(part)...)
			}
			for _, w := range subs {
				out = append(out, w)
				if _, after, ok := strings.Cut(w, "="); ok && after != "" {
					out = append(out, after)
				}
			}
		}
	}
	return out
}

// scriptCandidates lists the clean repository paths hook commands and env
// values may name, in a stable order.
func scriptCandidates(commands []string, env map[string]string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if c, err := repopath.Clean(p); err == nil && !seen[c] && !strings.ContainsAny(c, "\n\r") {
			seen[c] = true
			out = append(out, c)
		}
	}
	var words []string
	for _, c := range commands {
		words = append(words, commandWords(c)...)
	}
	for _, v := range env {
		words = append(words, commandWords(v)...)
	}
	for _, w := range words {
		add(w)
		for _, f := range implicitFiles[path.Base(w)] {
			add(f)
		}
	}
	sort.Strings(out)
	return out
}

// hookScripts finds which candidates exist at commit and returns their
// object ids, keyed by path ("dir/" for a directory). A symlink on the way
// (the file itself or a directory above it) counts with what it points to;
// one leading outside the repository cannot be trusted by content and is
// refused.
func hookScripts(repo *gitrepo.Repo, commit string, candidates []string) (map[string]string, error) {
	scripts := map[string]string{}
	seen := map[string]bool{}
	pending := candidates
	for round := 0; len(pending) > 0 && round < maxLinkRounds; round++ {
		var lookups []string
		for _, c := range pending {
			seen[c] = true
			lookups = append(lookups, prefixes(c)...)
		}
		lookups = slices.Compact(sortedCopy(lookups))
		objs, err := batchCheck(repo, commit, lookups)
		if err != nil {
			return nil, err
		}
		var blobs []string
		for _, p := range lookups {
			if objs[p].typ == "blob" {
				blobs = append(blobs, p)
			}
		}
		links, err := linksAmong(repo, commit, blobs)
		if err != nil {
			return nil, err
		}
		next := []string{}
	candidate:
		for _, c := range pending {
			for _, p := range prefixes(c) {
				if !links[p] {
					continue
				}
				scripts[p] = objs[p].oid // the link's own text is trusted too
				target, err := repo.BlobByID(objs[p].oid)
				if err != nil {
					return nil, err
				}
				t, err := repopath.LinkTarget(p, string(target))
				if err != nil || t == "" {
					return nil, fault.Refusedf("a worktree hook names %s, and %s is a symlink to %q at %.12s that leads outside the repository: trust cannot cover what it runs", c, p, target, commit)
				}
				if rest := strings.TrimPrefix(c, p); rest != "" {
					t += rest
				}
				if !seen[t] {
					next = append(next, t)
				}
				continue candidate
			}
			switch o := objs[c]; o.typ {
			case "tree":
				scripts[c+"/"] = o.oid
			case "blob":
				scripts[c] = o.oid
			}
		}
		pending = next
	}
	return scripts, nil
}

// prefixes lists the clean path p and every directory above it: "a/b/c"
// gives "a", "a/b", "a/b/c".
func prefixes(p string) []string {
	var out []string
	for i := 0; i < len(p); i++ {
		if p[i] == '/' {
			out = append(out, p[:i])
		}
	}
	return append(out, p)
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

type treeObject struct{ oid, typ string }

// batchCheck looks paths up in commit's tree with one git process.
func batchCheck(repo *gitrepo.Repo, commit string, paths []string) (map[string]treeObject, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	var in bytes.Buffer
	for _, p := range paths {
		fmt.Fprintf(&in, "%s:%s\n", commit, p)
	}
	out, err := repo.GitInput(in.Bytes(), "cat-file", "--batch-check=%(objectname) %(objecttype)")
	if err != nil {
		return nil, err
	}
	objs := map[string]treeObject{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for i := 0; sc.Scan() && i < len(paths); i++ {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && f[1] != "missing" {
			objs[paths[i]] = treeObject{oid: f[0], typ: f[1]}
		}
	}
	return objs, sc.Err()
}

// linksAmong returns which of files (blobs of commit) are symlinks.
func linksAmong(repo *gitrepo.Repo, commit string, files []string) (map[string]bool, error) {
	links := map[string]bool{}
	if len(files) == 0 {
		return links, nil
	}
	out, err := repo.Git(append([]string{"ls-tree", "-z", "--full-tree", commit, "--"}, repopath.Pathspecs(files)...)...)
	if err != nil {
		return nil, err
	}
	for _, rec := range strings.Split(string(out), "\x00") {
		meta, p, ok := strings.Cut(rec, "\t")
		if ok && strings.HasPrefix(meta, "120000 ") {
			links[p] = true
		}
	}
	return links, nil
}
