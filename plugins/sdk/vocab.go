package sdk

import "github.com/agentproto/agentproto/plugins/vocab"

// The words adapters and hosts share live in package vocab, which the CLI
// reads without linking the plugin transport; they are re-exported here
// unchanged, so an adapter needs no import but this package.

// Capabilities form a closed set; supervisors rely on their exact meaning.
// See vocab for what each one promises.
const (
	CapMessageInjection  = vocab.CapMessageInjection
	CapInterrupt         = vocab.CapInterrupt
	CapResume            = vocab.CapResume
	CapStateFork         = vocab.CapStateFork
	CapWorkspaceTransfer = vocab.CapWorkspaceTransfer
	CapTermination       = vocab.CapTermination
)

// Capabilities lists every capability an adapter may declare.
var Capabilities = vocab.Capabilities

// ValidCapability reports whether c is in the closed set.
func ValidCapability(c string) bool { return vocab.ValidCapability(c) }

// CanonicalCapabilities returns the members of the closed set that caps
// names, in the order of Capabilities, each once; never nil.
func CanonicalCapabilities(caps []string) []string { return vocab.CanonicalCapabilities(caps) }

// Faults are the typed provider failures an adapter reports with Error, so
// the host can fall back to another provider instead of guessing from text.
const (
	FaultInsufficientCredits = vocab.FaultInsufficientCredits
	FaultInvalidModel        = vocab.FaultInvalidModel
	FaultAuthFailed          = vocab.FaultAuthFailed
	FaultRateLimited         = vocab.FaultRateLimited
	FaultProviderUnavailable = vocab.FaultProviderUnavailable
	FaultEmptyTurn           = vocab.FaultEmptyTurn
	FaultAdapterStartTimeout = vocab.FaultAdapterStartTimeout
)

// Warnings are typed notices about a turn that are not provider faults;
// an adapter reports one with Warn.
const (
	WarnPermissionDenied    = vocab.WarnPermissionDenied
	WarnInterrupted         = vocab.WarnInterrupted
	WarnRetrying            = vocab.WarnRetrying
	WarnCommandStopped      = vocab.WarnCommandStopped
	WarnEmptyAfterInterrupt = vocab.WarnEmptyAfterInterrupt
)

// IsWarning reports whether kind, as carried by an error event, is one of
// the warning kinds rather than a fault.
func IsWarning(kind string) bool { return vocab.IsWarning(kind) }

// Warn reports a typed warning. It travels as an error event whose fault
// is the warning kind, so hosts that predate warnings still show it.
func Warn(out Emitter, kind, text string) { out.Error(text, kind) }

// FaultOfStatus maps a provider's HTTP status to a fault, or "" for a
// status that says nothing about the provider (400, 413...).
func FaultOfStatus(status int) string { return vocab.FaultOfStatus(status) }

// ClassifyFault returns the fault a provider message means, or "" when it
// does not look like a provider failure (see vocab.ClassifyFault).
func ClassifyFault(text string) string { return vocab.ClassifyFault(text) }

// SplitCommand breaks a command template into words the way a shell would
// for plain words and quotes, without running a shell. The host's trust
// check of committed options reads the same words, so an adapter that
// runs a command option should split it with this.
func SplitCommand(s string) ([]string, error) { return vocab.SplitCommand(s) }

// PingPrompt is the liveness check of the spawn protocol.
const PingPrompt = vocab.PingPrompt

// Info describes an adapter.
type Info = vocab.Info

// StartRequest starts a session.
type StartRequest = vocab.StartRequest

// Usage is what one turn has used so far, as the agent reported it.
type Usage = vocab.Usage

// MaxResumeBytes bounds a resume state: it is an id or a small cursor,
// kept by the host in the session's record.
const MaxResumeBytes = vocab.MaxResumeBytes

// SandboxEnv is set, in an adapter's environment, to the sandbox the
// sessions daemon runs it in ("landlock"); unset when it runs unconfined.
const SandboxEnv = vocab.SandboxEnv

// Confined reports whether env says the adapter runs in agentproto's
// sandbox: an agent CLI's own sandbox may not work inside it.
func Confined(env []string) bool { return vocab.Confined(env) }
