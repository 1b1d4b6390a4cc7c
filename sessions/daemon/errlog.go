package daemon

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/agentproto/agentproto/plugins/sdk"
)

// maxErrorLog bounds what one diagnosis reads of an agent's error log.
const maxErrorLog = 64 << 10

// errorLog follows an agent's own error log from where it stood when the
// session started: only what was written since can be about this session.
type errorLog struct {
	mu     sync.Mutex
	path   string
	offset int64
}

func openErrorLog(path string) *errorLog {
	if path == "" {
		return nil
	}
	e := &errorLog{path: path}
	if fi, err := os.Stat(path); err == nil {
		e.offset = fi.Size()
	}
	return e
}

// newLines returns the whole lines written since the last read.
func (e *errorLog) newLines() []byte {
	e.mu.Lock()
	defer e.mu.Unlock()
	f, err := os.Open(e.path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	} else if fi.Size() < e.offset {
		e.offset = 0 // rotated: the new file is all new
	}
	if _, err := f.Seek(e.offset, io.SeekStart); err != nil {
		return nil
	}
	b, _ := io.ReadAll(io.LimitReader(f, maxErrorLog))
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		b = b[:i+1]
	} else if len(b) < maxErrorLog {
		return nil // a line still being written
	}
	e.offset += int64(len(b))
	return b
}

// classifyLog returns the fault the most recent classifiable line of an
// error log means, "" for none.
func classifyLog(b []byte) string {
	lines := strings.Split(string(b), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if f := sdk.ClassifyFault(lines[i]); f != "" {
			return f
		}
	}
	return ""
}

// errorLogName is the session artifact that keeps what the agent's error
// log said during the session, beside output.log.
const errorLogName = "agent-errors.log"

// diagnose reads the agent's error log since the last look, keeps the new
// lines as a private session artifact and records the fault they name. It
// returns that fault and the artifact's reference, or "" when the log
// says nothing new. The ledger gets the fault and the reference, never
// the text.
func (d *Daemon) diagnose(l *live) (string, string) {
	f, ref := d.readErrorLog(l)
	if f == "" {
		return "", ""
	}
	diag := Diagnosis{sessionRef: d.ref(l), Step: "error_log", Fault: f, ErrorLogRef: ref}
	record(d, diagnosedKind, eventID(diag.sessionRef, KindDiagnosed, diag.Step), diag)
	return f, ref
}

// readErrorLog keeps the error log's new lines in the session artifact
// and adds the fault they name to the record. It returns that fault ("" for
// none) and the artifact's reference ("" when nothing new was read).
func (d *Daemon) readErrorLog(l *live) (string, string) {
	if l.errLog == nil {
		return "", ""
	}
	b := l.errLog.newLines()
	if len(b) == 0 {
		return "", ""
	}
	id := l.rec.ID
	path := filepath.Join(filepath.Dir(d.store.OutputPath(id)), errorLogName)
	if f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND|syscall.O_NOFOLLOW, 0o600); err == nil {
		f.Write(b)
		f.Close()
	}
	ref := "sessions/" + id + "/" + errorLogName
	f := classifyLog(b)
	if f != "" {
		d.mu.Lock()
		l.rec.Faults = append(l.rec.Faults, f)
		d.mu.Unlock()
	}
	return f, ref
}
