package e2e

import (
	"context"
	"fmt"
	"os"

	"github.com/agentproto/agentproto/plugins/sdk"
)

// The test binary doubles as an adapter whose agent dies the moment it
// is given real work: it answers the liveness ping, then exits inside the
// call that hands it its first prompt, before the turn can start. (The
// scripted adapter crashes from within a turn, which races with the turn's
// start.) The variable is one the daemon passes to adapters.
func init() {
	if os.Getenv("AGENTPROTO_E2E_ADAPTER") == "crash-on-first-prompt" {
		sdk.Serve(crashy{})
		os.Exit(0)
	}
}

type crashy struct{}

func (crashy) Info() sdk.Info {
	return sdk.Info{Name: "crashy", Version: "0.0.1", AuthMethods: []string{"none"}}
}

func (crashy) Start(_ context.Context, req sdk.StartRequest, out sdk.Emitter) (sdk.Session, error) {
	s := crashySession{out}
	if req.InitialPrompt != "" {
		s.Prompt(context.Background(), req.InitialPrompt, false)
	}
	return s, nil
}

type crashySession struct{ out sdk.Emitter }

func (s crashySession) Prompt(_ context.Context, text string, _ bool) error {
	if text != sdk.PingPrompt {
		fmt.Fprintln(sdk.Stderr, "crashy: segmentation fault on the first turn")
		os.Exit(139)
	}
	s.out.TurnStarted()
	s.out.Output([]byte("READY\n"))
	s.out.TurnEnded()
	return nil
}

func (s crashySession) Terminate(context.Context) error {
	s.out.Exited(0)
	return nil
}
