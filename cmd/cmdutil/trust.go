package cmdutil

// TrustVerdict is the last line of every trust command: what it did, or
// would do without --show.
func TrustVerdict(added, trusted bool) string {
	switch {
	case added:
		return "trusted on this machine"
	case trusted:
		return "already trusted on this machine"
	}
	return "not trusted (run without --show to trust)"
}
