package replay

import (
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"fmt"
	"hash"
	"slices"
	"strconv"

	"github.com/apeval/apeval/internal/jcs"
)

// Fingerprint is the approval fingerprint (docs/replay.md): the lowercase
// hex SHA-256 of the RFC 8785 (JCS) canonical JSON of
// {session_id, piece, movement, tool_name, arguments, rule_id, rule_version}.
// Absent arguments hash as {}; strings are hashed as given (not masked).
func Fingerprint(sessionID, piece, movement, toolName string, arguments map[string]any, ruleID string, ruleVersion int) string {
	var fp fingerprinter
	fp.setCall(sessionID, piece, movement, toolName, arguments)
	return fp.sum(ruleID, ruleVersion)
}

// Digest is a fingerprint as its 32 bytes (Fingerprint gives them in hex);
// the zero Digest stands for no fingerprint, as no SHA-256 that a canonical
// object hashes to is all zeros in practice.
type Digest [32]byte

// IsZero reports whether d is no fingerprint.
func (d Digest) IsZero() bool { return d == Digest{} }

// String is d in lowercase hex, or "" for no fingerprint.
func (d Digest) String() string {
	if d.IsZero() {
		return ""
	}
	return hex.EncodeToString(d[:])
}

// ParseDigest reads a fingerprint in lowercase hex; "" is no fingerprint.
func ParseDigest(s string) (Digest, error) {
	var d Digest
	if s == "" {
		return d, nil
	}
	if len(s) != 2*len(d) {
		return d, fmt.Errorf("fingerprint %q is not a SHA-256 in lowercase hex", s)
	}
	for i := range d {
		hi, lo := hexVal(s[2*i]), hexVal(s[2*i+1])
		if hi > 15 || lo > 15 {
			return Digest{}, fmt.Errorf("fingerprint %q is not a SHA-256 in lowercase hex", s)
		}
		d[i] = hi<<4 | lo
	}
	return d, nil
}

// hexVal is the value of a lowercase hex digit, above 15 for anything else.
func hexVal(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return 0xff
}

// CanonicalJSON returns the JCS canonical form of the fingerprinted object;
// Fingerprint is the SHA-256 of these bytes.
func CanonicalJSON(sessionID, piece, movement, toolName string, arguments map[string]any, ruleID string, ruleVersion int) []byte {
	var fp fingerprinter
	fp.setCall(sessionID, piece, movement, toolName, arguments)
	return slices.Clone(fp.object(ruleID, ruleVersion))
}

// fingerprinter computes the fingerprints of one call for many rules: the
// call's canonical part is encoded once, only the rule fields change.
type fingerprinter struct {
	head  []byte // {"arguments":…,"movement":…,"piece":…,"rule_id":
	tail  []byte // ,"session_id":…,"tool_name":…}
	buf   []byte
	canon jcs.Writer
	// When the head spans SHA-256 blocks (long arguments, a file's content),
	// it is hashed once and each rule resumes from that midstate.
	h     hash.Hash
	state []byte
	mid   bool
	sum32 []byte
}

// midstateMin is the head length from which resuming a saved SHA-256 state
// beats rehashing the head for every rule.
const midstateMin = 128

func (fp *fingerprinter) setCall(sessionID, piece, movement, toolName string, arguments map[string]any) {
	b := append(fp.head[:0], `{"arguments":`...)
	if arguments == nil {
		b = append(b, "{}"...)
	} else {
		b = fp.canon.AppendValue(b, arguments)
	}
	b = append(b, `,"movement":`...)
	b = jcs.AppendString(b, movement)
	b = append(b, `,"piece":`...)
	b = jcs.AppendString(b, piece)
	b = append(b, `,"rule_id":`...)
	fp.head = b
	t := append(fp.tail[:0], `,"session_id":`...)
	t = jcs.AppendString(t, sessionID)
	t = append(t, `,"tool_name":`...)
	t = jcs.AppendString(t, toolName)
	fp.tail = append(t, '}')
	fp.mid = len(fp.head) >= midstateMin
	if fp.mid {
		if fp.h == nil {
			fp.h = sha256.New()
		}
		fp.h.Reset()
		fp.h.Write(fp.head)
		var err error
		fp.state, err = fp.h.(encoding.BinaryAppender).AppendBinary(fp.state[:0])
		fp.mid = err == nil
	}
}

// digest returns the SHA-256 of the canonical object for one rule.
func (fp *fingerprinter) digest(ruleID string, ruleVersion int) [32]byte {
	if !fp.mid {
		return sha256.Sum256(fp.object(ruleID, ruleVersion))
	}
	if err := fp.h.(encoding.BinaryUnmarshaler).UnmarshalBinary(fp.state); err != nil {
		return sha256.Sum256(fp.object(ruleID, ruleVersion))
	}
	b := jcs.AppendString(fp.buf[:0], ruleID)
	b = append(b, `,"rule_version":`...)
	b = strconv.AppendInt(b, int64(ruleVersion), 10)
	b = append(b, fp.tail...)
	fp.buf = b
	fp.h.Write(b)
	fp.sum32 = fp.h.Sum(fp.sum32[:0])
	return [32]byte(fp.sum32)
}

func (fp *fingerprinter) object(ruleID string, ruleVersion int) []byte {
	b := append(fp.buf[:0], fp.head...)
	b = jcs.AppendString(b, ruleID)
	b = append(b, `,"rule_version":`...)
	b = strconv.AppendInt(b, int64(ruleVersion), 10)
	b = append(b, fp.tail...)
	fp.buf = b
	return b
}

func (fp *fingerprinter) sum(ruleID string, ruleVersion int) string {
	h := fp.digest(ruleID, ruleVersion)
	return hex.EncodeToString(h[:])
}
