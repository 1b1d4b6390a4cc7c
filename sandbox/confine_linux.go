package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
)

// ruleset is the Landlock configuration the sandbox enforces: every file
// system right of ABI 6 and both scopes. Network rights are not handled:
// agents talk to their model providers over TCP. Connecting to pathname
// Unix sockets is not a file system right before ABI 9, which is why the
// sessions daemon authorises control by a token the sandbox cannot read.
var ruleset = landlock.Config{HandledAccessFS: landlock.V6.HandledAccessFS, Scoped: landlock.V6.Scoped}

// rules turns the policy into Landlock rules. Files and directories take
// different rights (directory rights on a file are refused), so each
// path is looked at; one that is missing is left out.
func (p Policy) rules() []landlock.Rule {
	var out []landlock.Rule
	add := func(paths []string, dir, file func(string) landlock.Rule) {
		for _, path := range paths {
			fi, err := os.Stat(path)
			switch {
			case err != nil:
			case fi.IsDir():
				out = append(out, dir(path))
			default:
				out = append(out, file(path))
			}
		}
	}
	add(p.Read,
		func(s string) landlock.Rule { return landlock.RODirs(s).IgnoreIfMissing() },
		func(s string) landlock.Rule { return landlock.ROFiles(s).IgnoreIfMissing() })
	add(p.Write,
		func(s string) landlock.Rule { return landlock.RWDirs(s).WithRefer().IgnoreIfMissing() },
		func(s string) landlock.Rule { return landlock.RWFiles(s).IgnoreIfMissing() })
	add(p.Devices,
		func(s string) landlock.Rule { return landlock.RWDirs(s).WithIoctlDev().IgnoreIfMissing() },
		func(s string) landlock.Rule { return landlock.RWFiles(s).WithIoctlDev().IgnoreIfMissing() })
	return out
}

// Confine restricts this process (all its threads) to the policy and
// everything it will start. It cannot be undone.
func Confine(p Policy) error {
	if err := ruleset.Restrict(p.rules()...); err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	return nil
}

// confineExec confines this process and replaces it with argv.
func confineExec(p Policy, argv []string) error {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	if err := Confine(p); err != nil {
		return err
	}
	return syscall.Exec(path, argv, os.Environ())
}
