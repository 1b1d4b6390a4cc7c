package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	"golang.org/x/sys/unix"
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

// confineExec confines this process and replaces it with argv, without
// capabilities.
func confineExec(p Policy, argv []string) error {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	if p.Hold {
		return syscall.Exec(path, argv, os.Environ())
	}
	if err := Confine(p); err != nil {
		return err
	}
	// Capabilities are per thread, and exec gives the program those of
	// the thread that calls it.
	runtime.LockOSThread()
	if err := dropCapabilities(); err != nil {
		return err
	}
	return syscall.Exec(path, argv, os.Environ())
}

// secureNoRoot are the securebits that keep uid 0 from regaining
// capabilities at exec, locked: SECBIT_NOROOT, SECBIT_NO_SETUID_FIXUP and
// SECBIT_KEEP_CAPS_LOCKED with their locks.
const secureNoRoot = 0x2f

// dropCapabilities empties this thread's capability sets, the bounding
// set included, so nothing it execs gets one back. Measured: a process in
// a Landlock domain that keeps CAP_SYS_PTRACE (an agent run as root)
// still reads /proc/PID/environ of processes outside the domain; without
// it the read is refused, as it is for any other uid.
func dropCapabilities() error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && err != unix.EINVAL {
		return fmt.Errorf("clearing the ambient capabilities: %w", err)
	}
	for c := 0; c <= unix.CAP_LAST_CAP; c++ {
		// EPERM: without CAP_SETPCAP there is nothing to drop (an
		// unprivileged user); EINVAL: a capability this kernel lacks.
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && err != unix.EINVAL && err != unix.EPERM {
			return fmt.Errorf("dropping capability %d from the bounding set: %w", c, err)
		}
	}
	// Root gets its capabilities back at exec unless told not to.
	if err := unix.Prctl(unix.PR_SET_SECUREBITS, secureNoRoot, 0, 0, 0); err != nil && err != unix.EPERM {
		return fmt.Errorf("keeping root from its capabilities: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("dropping capabilities: %w", err)
	}
	return nil
}
