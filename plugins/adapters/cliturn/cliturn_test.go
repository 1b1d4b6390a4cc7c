package cliturn

import (
	"testing"
	"time"
)

// Refuse finds a banned flag in any of its spellings and nothing else.
func TestRefuse(t *testing.T) {
	banned := map[string]string{"--add-dir": "no", "-s": "no"}
	for _, w := range []string{"--add-dir", "--add-dir=x", "-s", "-sread-only"} {
		if Refuse("extra", []string{"ok", w}, banned) == nil {
			t.Errorf("%s passed", w)
		}
	}
	for _, w := range []string{"--add-dirs", "--skip-git-repo-check", "x-s", "--s"} {
		if err := Refuse("extra", []string{w}, banned); err != nil {
			t.Errorf("%s refused: %v", w, err)
		}
	}
}

// An interrupt reaches the agent behind a wrapper that ignores SIGINT
// (as a launcher that neither forwards nor dies would), so the turn ends.
func TestInterruptReachesWrappedAgent(t *testing.T) {
	d := wrapped{}
	s := &Session{Dir: t.TempDir(), Driver: d, Out: nopEmitter{}}
	if err := s.Start("x"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // the wrapper has started its child
	s.mu.Lock()
	done := s.done
	s.mu.Unlock()
	start := time.Now()
	s.interrupt(false)
	<-done
	if d := time.Since(start); d >= interruptGrace {
		t.Fatalf("the turn took %v to stop: the signal did not reach the agent", d)
	}
}

type wrapped struct{}

func (wrapped) Command(t *Turn) (Call, error) {
	// The wrapper handles INT only once its child (the "agent", holding
	// stdout) has ended; a signal to the wrapper alone waits the child out.
	return Call{Name: "sh", Args: []string{"-c", "trap : INT; sleep 30; :"}}, nil
}
func (wrapped) Line(*Turn, []byte) {}

type nopEmitter struct{}

func (nopEmitter) Output([]byte)        {}
func (nopEmitter) TurnStarted()         {}
func (nopEmitter) TurnEnded()           {}
func (nopEmitter) Error(string, string) {}
func (nopEmitter) Exited(int)           {}
