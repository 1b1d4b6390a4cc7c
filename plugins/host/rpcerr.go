package host

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// rpcError says in our words what a failed call to the adapter means; gRPC's
// own text ("rpc error: code = Unavailable desc = ...") says it to no one.
func (c *Client) rpcError(err error) error {
	if err == nil || errors.Is(err, context.Canceled) {
		return err
	}
	s, ok := status.FromError(err)
	if !ok {
		return err
	}
	switch s.Code() {
	case codes.Unavailable:
		return fmt.Errorf("adapter %s exited or closed its connection (%s)", c.Spec.Name, s.Message())
	case codes.DeadlineExceeded:
		return fmt.Errorf("adapter %s did not answer in time", c.Spec.Name)
	case codes.Canceled:
		return err
	}
	return fmt.Errorf("adapter %s: %s", c.Spec.Name, s.Message())
}
