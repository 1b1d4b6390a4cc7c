package scripted_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agentproto/agentproto/plugins/adapters/scripted"
	"github.com/agentproto/agentproto/plugins/sdk/sdktest"
)

const prompt = "```agentproto-script\n{\"op\":\"write\",\"path\":\"out.txt\",\"content\":\"x\"}\n{\"op\":\"say\",\"text\":\"done\"}\n```"
const longPrompt = "```agentproto-script\n{\"op\":\"say\",\"text\":\"working\"}\n{\"op\":\"sleep\",\"ms\":60000}\n```"

func TestConformanceInProcess(t *testing.T) {
	sdktest.Run(t, scripted.Adapter{}, sdktest.Options{Prompt: prompt, LongPrompt: longPrompt})
}

func TestConformanceBinary(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "agentproto-adapter-scripted")
	build := exec.Command("go", "build", "-o", bin, "github.com/agentproto/agentproto/cmd/agentproto-adapter-scripted")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		t.Fatal(err)
	}
	sdktest.RunBinary(t, bin, sdktest.Options{Prompt: prompt, LongPrompt: longPrompt})
}

func TestParse(t *testing.T) {
	steps, found, err := scripted.Parse("do this:\n```agentproto-script\n{\"op\":\"say\",\"text\":\"a\"}\n\n{\"op\":\"exit\",\"code\":2}\n```\ntrailer")
	if err != nil || !found || len(steps) != 2 || steps[1].Code != 2 {
		t.Fatalf("steps=%+v found=%v err=%v", steps, found, err)
	}
	if _, _, err := scripted.Parse("```agentproto-script\n{\"op\":\"say\",\"bogus\":1}\n```"); err == nil {
		t.Fatal("unknown field accepted")
	}
	if _, found, _ := scripted.Parse("plain text"); found {
		t.Fatal("found a script in plain text")
	}
}
