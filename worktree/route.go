package worktree

import (
	"strings"

	"github.com/agentproto/agentproto/internal/gitrepo"
)

// Checkout paths recorded in Meta.Checkout.
const (
	// CheckoutFast: agentproto wrote the files itself (with git's line
	// ending conversions where they apply).
	CheckoutFast = "fast"
	// CheckoutGit: git's own checkout wrote them, for what only git does
	// exactly (filters, ident, encodings, sparse checkouts, partial
	// clones, submodules).
	CheckoutGit = "git"
)

// chooseCheckout decides how plan is checked out: it sets each file's
// line ending conversion and returns why git's own checkout is needed,
// or "" when the fast path writes exactly what git would.
func chooseCheckout(repo *gitrepo.Repo, cfg gitConfig, plan *treePlan, submodules bool) (string, error) {
	switch {
	case cfg.boolean("core.sparsecheckout", false):
		return "sparse checkout (core.sparseCheckout)", nil
	case partialClone(cfg) != "":
		return partialClone(cfg), nil
	case !cfg.boolean("core.symlinks", true):
		return "core.symlinks=false writes symlinks as plain files", nil
	case submodules && plan.gitlinks > 0:
		return "submodules ([worktree] submodules = true)", nil
	}
	eol := cfg.eol()
	if len(plan.attrFiles) == 0 && len(attributeSources(repo, cfg)) == 0 {
		// No attribute anywhere: only core.autocrlf can convert.
		if eol.autocrlf == 1 {
			for i := range plan.files {
				plan.files[i].conv = convAutoCRLF
			}
		}
		return "", nil
	}
	attrs, err := readAttributes(repo, plan)
	if err != nil {
		return "", err
	}
	for i := range plan.files {
		f := &plan.files[i]
		a := attrs[f.path]
		if a == (pathAttrs{}) {
			a = pathAttrs{"unspecified", "unspecified", "unspecified", "unspecified", "unspecified", "unspecified"}
		}
		text, crlf, eolAttr, ident, filter, encoding := a[0], a[1], a[2], a[3], a[4], a[5]
		switch {
		case ident == "set":
			return "ident on " + f.path, nil
		case isValue(filter) && cfg.filterSmudges(filter):
			return "filter=" + filter + " on " + f.path, nil
		case isValue(encoding) && !isUTF8Name(encoding):
			return "working-tree-encoding=" + encoding + " on " + f.path, nil
		}
		f.conv = eolConversion(text, crlf, eolAttr, eol)
	}
	return "", nil
}

// isValue: a check-attr value that is a string, not set/unset/unspecified.
func isValue(v string) bool {
	return v != "" && v != "set" && v != "unset" && v != "unspecified"
}

// partialClone says why blobs may be missing here, or "".
func partialClone(cfg gitConfig) string {
	if cfg.str("extensions.partialclone") != "" {
		return "partial clone (extensions.partialClone)"
	}
	for k := range cfg {
		if strings.HasPrefix(k, "remote.") && strings.HasSuffix(k, ".promisor") && cfg.boolean(k, false) {
			return "partial clone (" + k + ")"
		}
	}
	return ""
}
