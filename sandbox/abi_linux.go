package sandbox

import ll "github.com/landlock-lsm/go-landlock/landlock/syscall"

func kernelABI() int {
	v, err := ll.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return v
}
