package plans

import "github.com/agentproto/agentproto/perimeter"

// Glob is the perimeter pattern, kept under this name for the review code
// in pipeline, which is moving to its own package; once there it takes
// perimeter.Glob and this goes.
type Glob = perimeter.Glob

// ParseGlob parses a perimeter pattern; see perimeter.ParseGlob.
func ParseGlob(s string) (Glob, error) { return perimeter.ParseGlob(s) }
