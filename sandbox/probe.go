package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
)

// MinABI is the Landlock ABI the sandbox needs: 6 adds the scopes that
// keep signals and abstract Unix sockets inside the domain; below it an
// agent could still kill or talk to processes outside its session.
const MinABI = 6

// abiOverride lets a test run the sandbox as on a kernel with another
// Landlock ABI ("0": none at all). It can only take features away.
const abiOverride = "AGENTPROTO_SANDBOX_ABI"

// LauncherName is the launcher binary, installed beside git-agentproto.
const LauncherName = "agentproto-sandbox"

// Support is what this machine offers the sandbox.
type Support struct {
	// ABI is the kernel's Landlock ABI version, 0 without Landlock.
	ABI int
	// Launcher is the path of agentproto-sandbox, "" when not found.
	Launcher string
	// Missing says what is lacking, "" when the sandbox can run.
	Missing string
}

// OK reports whether the sandbox can run here.
func (s Support) OK() bool { return s.Missing == "" }

// Probe finds out what the sandbox can use: the kernel's Landlock ABI
// and the launcher, looked for beside the running executable first (the
// daemon, agentproto-sessions, is installed with it), then on PATH.
func Probe() Support {
	s := Support{ABI: kernelABI()}
	if v := os.Getenv(abiOverride); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n < s.ABI {
			s.ABI = n
		}
	}
	s.Launcher = findLauncher()
	switch {
	case s.ABI == 0:
		s.Missing = "this kernel has no Landlock (Linux 5.13 or later with Landlock enabled, lsm=landlock)"
	case s.ABI < MinABI:
		s.Missing = fmt.Sprintf("this kernel has Landlock ABI %d; the sandbox needs ABI %d (Linux 6.12 or later) to keep signals inside a session", s.ABI, MinABI)
	case s.Launcher == "":
		s.Missing = "the launcher " + LauncherName + " is not installed beside git-agentproto nor on PATH (make install puts it there)"
	}
	return s
}

func findLauncher() string {
	if runtime.GOOS != "linux" {
		return "" // it holds and confines with Linux's own means
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), LauncherName)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	if p, err := exec.LookPath(LauncherName); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
	}
	return ""
}
