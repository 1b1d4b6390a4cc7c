package sessions

// Lifecycle states. launched -> running (turn started) -> settled (turn
// ended) -> running ... ; then exited (the agent ended), failed (the adapter
// crashed or could not start) or cleaned (killed or collected). The daemon's
// state machine (sessions/daemon) says which moves are allowed.
const (
	StateLaunched = "launched"
	StateRunning  = "running"
	StateSettled  = "settled"
	StateExited   = "exited"
	StateFailed   = "failed"
	StateCleaned  = "cleaned"
)

// Terminal reports whether a session in state s does nothing more.
func Terminal(s string) bool { return s == StateExited || s == StateFailed || s == StateCleaned }
