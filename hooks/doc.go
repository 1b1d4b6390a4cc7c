// Package hooks will hold setup hooks for worktree provisioning and the
// git hooks (pre-push) with their trust records. Nothing is implemented here
// yet.
package hooks
