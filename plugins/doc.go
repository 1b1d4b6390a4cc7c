// Package plugins will hold the executor adapter wire protocol, the host
// side, the SDK for adapter authors and the reference adapters. Nothing is
// implemented here yet.
package plugins
