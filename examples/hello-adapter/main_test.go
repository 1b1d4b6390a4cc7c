package main

import (
	"testing"

	"github.com/agentproto/agentproto/plugins/sdk/sdktest"
)

// The conformance suite, as an adapter author runs it.
func TestConformance(t *testing.T) {
	sdktest.Run(t, adapter{}, sdktest.Options{Prompt: "echo hello"})
}
