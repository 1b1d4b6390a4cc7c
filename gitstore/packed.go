package gitstore

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"strconv"
	"sync"
	"time"
)

// The index stores each event under its order key as the binary commit
// id, a checksum, and the envelope in one of two forms. A canonical
// envelope (what agentproto writes) is packed: the id, clock and writer
// are already in the key, the schema is a constant and the seal is hex,
// so only the rest is kept, in binary. The envelope is rebuilt from it
// byte for byte when read; anything that would not rebuild exactly is
// kept as it is. A packed event takes about half the room of its text,
// and the index is a cache that every cold read writes in full.
//
// The checksum (CRC-32C over key and value) is what finds a damaged entry
// now that the envelope's own text no longer does: a garbled key would
// otherwise read as another id or clock.
const (
	formRaw    = 0 // the envelope as it is
	formPacked = 1 // appendPacked's layout
)

// valueHead is the commit id and the checksum before the envelope's form.
const valueHead = 20 + 4

// castagnoli is made on first use: every command links this package,
// few read packed envelopes, and making the table at start-up showed in
// the profile of `git agentproto sessions start`.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// Flags of a packed envelope: which optional fields it holds and how.
const (
	packGoal      = 1 << iota
	packAgent     // agent present
	packSeal      // seal present
	packSealHex   // the seal is 64 lowercase hex digits, stored as 32 bytes
	packTimeNanos // the time is RFC 3339 in UTC, stored as 8 bytes of nanoseconds
)

const envelopeHead = `{"schema":"` + Schema + `","id":"`

// appendValue appends the index value of the event e, decoded from env and
// stored under key, whose commit is oid. scratch is reused for the check
// that a packed envelope rebuilds env exactly.
func appendValue(dst, scratch, key []byte, oid *[20]byte, env []byte, e *Event) ([]byte, []byte) {
	start := len(dst)
	dst = append(dst, oid[:]...)
	dst = append(dst, 0, 0, 0, 0)
	dst, scratch = packEnvelope(dst, scratch, key, env, e)
	v := dst[start:]
	binary.BigEndian.PutUint32(v[20:], valueSum(key, v))
	return dst, scratch
}

func valueSum(key, v []byte) uint32 {
	sum := crc32.Update(0, castagnoli(), key)
	sum = crc32.Update(sum, castagnoli(), v[:20])
	return crc32.Update(sum, castagnoli(), v[valueHead:])
}

// readValue appends the envelope of the value v stored under key and
// returns it with the commit id; ok is false when v is damaged.
func readValue(dst, key, v []byte) (env, oid []byte, ok bool) {
	if len(v) <= valueHead || binary.BigEndian.Uint32(v[20:]) != valueSum(key, v) {
		return dst, nil, false
	}
	env, ok = appendEnvelope(dst, key, v[valueHead:])
	return env, v[:20], ok
}

// packEnvelope appends to dst the index form of env, the envelope e was
// decoded from, stored under key: packed when that rebuilds env exactly,
// else env as it is. scratch is reused for the check.
func packEnvelope(dst, scratch, key, env []byte, e *Event) ([]byte, []byte) {
	start := len(dst)
	if len(e.Attachments) == 0 && len(e.Kind) < 256 {
		dst = appendPacked(dst, e)
		var ok bool
		scratch, ok = appendUnpacked(scratch[:0], key, dst[start:])
		if ok && bytes.Equal(scratch, env) {
			return dst, scratch
		}
		dst = dst[:start]
	}
	dst = append(dst, formRaw)
	return append(dst, env...), scratch
}

func appendPacked(dst []byte, e *Event) []byte {
	flags := byte(0)
	var nanos int64
	if t, err := time.Parse(time.RFC3339Nano, e.Time); err == nil && t.Location() == time.UTC {
		// Only a time that prints back the same (no trailing zeros, a year
		// UnixNano holds) is stored as a number.
		var buf [40]byte
		if nanos = t.UnixNano(); string(time.Unix(0, nanos).UTC().AppendFormat(buf[:0], time.RFC3339Nano)) == e.Time {
			flags |= packTimeNanos
		}
	}
	if e.Goal != "" {
		flags |= packGoal
	}
	if e.Agent != "" {
		flags |= packAgent
	}
	var seal [32]byte
	if e.Seal != "" {
		flags |= packSeal
		if len(e.Seal) == 64 && isLowerHex(e.Seal) {
			hex.Decode(seal[:], []byte(e.Seal))
			flags |= packSealHex
		}
	}
	dst = append(dst, formPacked, flags, byte(len(e.Kind)))
	dst = append(dst, e.Kind...)
	if flags&packTimeNanos != 0 {
		dst = binary.BigEndian.AppendUint64(dst, uint64(nanos))
	} else {
		dst = appendField(dst, e.Time)
	}
	if flags&packGoal != 0 {
		dst = appendField(dst, e.Goal)
	}
	if flags&packAgent != 0 {
		dst = appendField(dst, e.Agent)
	}
	if flags&packSealHex != 0 {
		dst = append(dst, seal[:]...)
	} else if flags&packSeal != 0 {
		dst = appendField(dst, e.Seal)
	}
	return append(dst, e.Data...)
}

func appendField(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !lowerHex[s[i]] {
			return false
		}
	}
	return true
}

var lowerHex = func() (t [256]bool) {
	for _, c := range "0123456789abcdef" {
		t[c] = true
	}
	return t
}()

// appendEnvelope appends the envelope of a stored form (v after the
// value's head) kept under key. ok is false when v does not read.
func appendEnvelope(dst, key, v []byte) ([]byte, bool) {
	if len(v) == 0 {
		return dst, false
	}
	if v[0] == formRaw {
		return append(dst, v[1:]...), true
	}
	return appendUnpacked(dst, key, v)
}

// appendUnpacked rebuilds a packed envelope.
func appendUnpacked(dst, key, v []byte) ([]byte, bool) {
	lamport, writer, id, ok := splitOrderKey(key)
	if !ok || len(v) < 3 || v[0] != formPacked {
		return dst, false
	}
	flags, n := v[1], int(v[2])
	v = v[3:]
	if len(v) < n {
		return dst, false
	}
	kind := v[:n]
	v = v[n:]
	dst = append(dst, envelopeHead...)
	dst = append(dst, id...)
	dst = append(dst, `","kind":"`...)
	dst = append(dst, kind...)
	dst = append(dst, `","lamport":`...)
	dst = strconv.AppendUint(dst, lamport, 10)
	dst = append(dst, `,"writer":"`...)
	dst = append(dst, writer...)
	dst = append(dst, `","time":"`...)
	if flags&packTimeNanos != 0 {
		if len(v) < 8 {
			return dst, false
		}
		dst = time.Unix(0, int64(binary.BigEndian.Uint64(v))).UTC().AppendFormat(dst, time.RFC3339Nano)
		v = v[8:]
	} else if dst, v, ok = appendStored(dst, v); !ok {
		return dst, false
	}
	dst = append(dst, '"')
	if flags&packGoal != 0 {
		dst = append(dst, `,"goal":"`...)
		if dst, v, ok = appendStored(dst, v); !ok {
			return dst, false
		}
		dst = append(dst, '"')
	}
	if flags&packAgent != 0 {
		dst = append(dst, `,"agent":"`...)
		if dst, v, ok = appendStored(dst, v); !ok {
			return dst, false
		}
		dst = append(dst, '"')
	}
	if flags&packSeal != 0 {
		dst = append(dst, `,"seal":"`...)
		if flags&packSealHex != 0 {
			if len(v) < 32 {
				return dst, false
			}
			dst = hex.AppendEncode(dst, v[:32])
			v = v[32:]
		} else if dst, v, ok = appendStored(dst, v); !ok {
			return dst, false
		}
		dst = append(dst, '"')
	}
	dst = append(dst, `,"data":`...)
	dst = append(dst, v...)
	return append(dst, '}'), true
}

// appendStored appends one length-prefixed field of v and returns the rest.
func appendStored(dst, v []byte) ([]byte, []byte, bool) {
	n, w := binary.Uvarint(v)
	if w <= 0 || uint64(len(v)-w) < n {
		return dst, nil, false
	}
	return append(dst, v[w:w+int(n)]...), v[w+int(n):], true
}

// splitOrderKey is orderKey undone. A writer never holds a 0 byte (it
// names a ref), so the first one after the clock ends it.
func splitOrderKey(k []byte) (lamport uint64, writer, id []byte, ok bool) {
	if len(k) == 0 || k[0] > 8 || len(k) < 1+int(k[0])+1 {
		return 0, nil, nil, false
	}
	n := int(k[0])
	for _, b := range k[1 : 1+n] {
		lamport = lamport<<8 | uint64(b)
	}
	rest := k[1+n:]
	i := bytes.IndexByte(rest, 0)
	if i < 0 {
		return 0, nil, nil, false
	}
	return lamport, rest[:i], rest[i+1:], true
}
