package config

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/agentproto/agentproto/internal/lazyre"
)

// Pin records sum as the sha256 of adapter name in the agentproto.toml of
// worktree, editing the text in place so that comments and layout stay.
// An edit that would leave the file invalid writes nothing.
func Pin(worktree, name, sum string) error {
	path := filepath.Join(worktree, FileName)
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	text := setPin(string(old), name, sum)
	if _, err := Parse([]byte(text), FileName); err != nil {
		return fmt.Errorf("pinning would make %s invalid (%v); nothing was changed", FileName, err)
	}
	return os.WriteFile(path, []byte(text), 0o644)
}

// setPin sets sha256 in the [plugins.NAME] table, adding the table or the
// key when missing and leaving every other line as it was.
func setPin(text, name, sum string) string {
	lines := strings.Split(text, "\n")
	header := lazyre.New(`^\s*\[\s*plugins\.` + regexp.QuoteMeta(name) + `\s*\]\s*(#.*)?$`)
	anyHeader := lazyre.New(`^\s*\[`)
	key := lazyre.New(`^\s*sha256\s*=`)
	line := fmt.Sprintf("sha256 = %q", sum)
	for i, l := range lines {
		if !header.MatchString(l) {
			continue
		}
		j := i + 1
		for ; j < len(lines) && !anyHeader.MatchString(lines[j]); j++ {
			if key.MatchString(lines[j]) {
				lines[j] = line
				return strings.Join(lines, "\n")
			}
		}
		out := append(append(append([]string{}, lines[:i+1]...), line), lines[i+1:]...)
		return strings.Join(out, "\n")
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return text + fmt.Sprintf("\n[plugins.%s]\n%s\n", name, line)
}
