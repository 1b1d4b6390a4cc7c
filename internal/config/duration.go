package config

import (
	"fmt"
	"strings"
	"time"
)

// Duration is a span of time written with its unit in agentproto.toml
// ("90s", "40m"). A bare number is refused rather than read as
// nanoseconds, which is what the TOML decoder does with time.Duration and
// what made "timeout = 40" a 40 ns wait.
type Duration struct {
	time.Duration
}

// durationHint ends the message of every refused duration; DecodeStrict
// recognises it to name the key, which UnmarshalText cannot see.
const durationHint = `is not a duration with a unit, such as "90s" or "40m"`

// UnmarshalText reads "90s", "2m", "1h30m".
func (d *Duration) UnmarshalText(text []byte) error {
	s := strings.TrimSpace(string(text))
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q %s", s, durationHint)
	}
	d.Duration = v
	return nil
}

// MarshalText writes the duration the way a person would: "40m", not
// "40m0s", so config show prints what the file says.
func (d Duration) MarshalText() ([]byte, error) {
	return []byte(d.String()), nil
}

// String is the short form of MarshalText.
func (d Duration) String() string {
	s := d.Duration.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func minutes(n int) Duration { return Duration{time.Duration(n) * time.Minute} }
func seconds(n int) Duration { return Duration{time.Duration(n) * time.Second} }
