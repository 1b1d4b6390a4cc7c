package catalog_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/plugins/catalog"
)

// The host names the config file in its messages without reading config:
// the name must stay the one config reads.
func TestConfigFileIsTheConfigsName(t *testing.T) {
	if catalog.ConfigFile != config.FileName {
		t.Fatalf("catalog.ConfigFile = %q, config.FileName = %q", catalog.ConfigFile, config.FileName)
	}
}

// A [plugins.NAME] table reaches Locate through Pins: its path and pin
// are what the host finds, and List names it.
func TestLocateReadsThePins(t *testing.T) {
	root := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	bin := filepath.Join(root, "adapter")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	pins := config.Plugins{"mine": {Path: "adapter", SHA256: "abc"}}
	f, err := catalog.Locate("mine", pins, root)
	if err != nil {
		t.Fatal(err)
	}
	if f.Source != catalog.SourceConfig || f.Path != bin || f.SHA256 != "abc" {
		t.Fatalf("Locate = %+v", f)
	}
	found := false
	for _, l := range catalog.List(pins, root) {
		found = found || l.Name == "mine"
	}
	if !found {
		t.Fatalf("List does not name the configured adapter")
	}
}
