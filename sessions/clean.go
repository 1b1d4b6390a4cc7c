package sessions

import "github.com/agentproto/agentproto/internal/lazyre"

// escapes matches terminal control sequences (CSI, OSC) and stray controls.
var escapes = lazyre.New(`\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[@-Z\\-_]|[\x00-\x08\x0b-\x1f\x7f]`)

// CleanOutput strips what an agent printed to steer a terminal rather than
// to be read: escape sequences and control characters other than tab and
// newline.
func CleanOutput(b []byte) []byte { return escapes.ReplaceAll(b, nil) }
