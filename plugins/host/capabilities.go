package host

import (
	"context"
	"os"
	"time"
)

// Capabilities launches the adapter of spec once, with only PATH and HOME
// of the environment, to read the capabilities it declares.
func Capabilities(spec Spec) ([]string, error) {
	c, err := Launch(spec, LaunchOptions{Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}})
	if err != nil {
		return nil, err
	}
	defer c.Kill()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	info, err := c.Describe(ctx)
	if err != nil {
		return nil, err
	}
	return info.Capabilities, nil
}
