package replay

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"

	"github.com/apeval/apeval/datasets"
)

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func TestFingerprintVectors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                                string
		session, piece, movement, tool, rid string
		version                             int
		args                                map[string]any
		canonical                           string
		hash                                string // pinned where computed outside Go (sha256sum)
	}{
		{
			name: "design example", session: "task-42", piece: "coding", movement: "implement", tool: "Bash",
			rid: "rule-12", version: 3, args: map[string]any{"command": "rm -rf build"},
			canonical: `{"arguments":{"command":"rm -rf build"},"movement":"implement","piece":"coding","rule_id":"rule-12","rule_version":3,"session_id":"task-42","tool_name":"Bash"}`,
			hash:      "bb72ae65ed490872eb0ff4803f44f75c210ca7edf347388d24fa8a4cbed87b65",
		},
		{
			name: "non-ASCII, numbers, escapes, key order", session: "セッション", piece: "", movement: "実装", tool: "Write",
			rid: "r", version: 12,
			args: map[string]any{
				"path": "/srv/データ/ü.txt",
				"n":    []any{1.5, 100.0, 1e21, 1e-7, math.Copysign(0, -1), 0.000001, 123456789012345678901.0},
				"s":    "tab\there \"q\" \\ \x01 <>&\u2028",
				"z":    true, "é": nil, "€": map[string]any{}, "😀": []any{}, "ｱ": 5.0,
			},
			canonical: `{"arguments":{"n":[1.5,100,1e+21,1e-7,0,0.000001,123456789012345680000],"path":"/srv/データ/ü.txt",` +
				`"s":"tab\there \"q\" \\ \u0001 <>&` + "\u2028" + `","z":true,"é":null,"€":{},"😀":[],"ｱ":5},` +
				`"movement":"実装","piece":"","rule_id":"r","rule_version":12,"session_id":"セッション","tool_name":"Write"}`,
		},
		{
			name: "no arguments", session: "s", tool: "Noop", rid: "x", version: 1,
			canonical: `{"arguments":{},"movement":"","piece":"","rule_id":"x","rule_version":1,"session_id":"s","tool_name":"Noop"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(CanonicalJSON(tt.session, tt.piece, tt.movement, tt.tool, tt.args, tt.rid, tt.version))
			if got != tt.canonical {
				t.Fatalf("canonical\n got %s\nwant %s", got, tt.canonical)
			}
			fp := Fingerprint(tt.session, tt.piece, tt.movement, tt.tool, tt.args, tt.rid, tt.version)
			if want := sha(tt.canonical); fp != want {
				t.Errorf("fingerprint %s, want sha256(canonical) %s", fp, want)
			}
			if tt.hash != "" && fp != tt.hash {
				t.Errorf("fingerprint %s, want pinned %s", fp, tt.hash)
			}
			// The reference JCS implementation agrees.
			obj := map[string]any{"session_id": tt.session, "piece": tt.piece, "movement": tt.movement,
				"tool_name": tt.tool, "arguments": tt.args, "rule_id": tt.rid, "rule_version": tt.version}
			if tt.args == nil {
				obj["arguments"] = map[string]any{}
			}
			raw, err := json.Marshal(obj)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := jcs.Transform(raw)
			if err != nil {
				t.Fatal(err)
			}
			if string(ref) != got {
				t.Errorf("reference JCS\n got %s\nours %s", ref, got)
			}
		})
	}
}

func FuzzCanonicalMatchesJCS(f *testing.F) {
	f.Add(`{"a":1,"b":[1.5,"x\u0001"],"é":{"z":null}}`, "sess", "rule")
	f.Add(`{"😀":1,"ｱ":2,"\u0000":3e300,"n":-0.0000012}`, "s\n", "r\"")
	f.Fuzz(func(t *testing.T, argsJSON, session, rule string) {
		var args map[string]any
		if json.Unmarshal([]byte(argsJSON), &args) != nil {
			return
		}
		got := CanonicalJSON(session, "p", "m", "Tool", args, rule, 2)
		raw, err := json.Marshal(map[string]any{"session_id": session, "piece": "p", "movement": "m",
			"tool_name": "Tool", "arguments": nonNil(args), "rule_id": rule, "rule_version": 2})
		if err != nil {
			t.Skip()
		}
		ref, err := jcs.Transform(raw)
		if err != nil {
			t.Fatalf("reference rejects %s: %v", raw, err)
		}
		if string(ref) != string(got) {
			t.Fatalf("\nref  %s\nours %s", ref, got)
		}
	})
}

func nonNil(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

func TestFingerprintOfCaseIsStable(t *testing.T) {
	t.Parallel()
	c := &datasets.Case{ID: "c1", SessionID: "s1", Piece: "coding", Movement: "implement",
		Tool: datasets.Tool{Name: "Bash", Arguments: map[string]any{"command": "rm -rf build"}}}
	var fp fingerprinter
	fp.setCall(c.SessionID, c.Piece, c.Movement, c.Tool.Name, c.Tool.Arguments)
	a := fp.sum("rule-1", 1)
	b := fp.sum("rule-2", 1)
	if a == b || a != Fingerprint("s1", "coding", "implement", "Bash", c.Tool.Arguments, "rule-1", 1) {
		t.Errorf("fingerprints per rule: %s %s", a, b)
	}
	if len(a) != 64 {
		t.Errorf("len = %d", len(a))
	}
}

// A Digest prints as the hex Fingerprint gives and parses back; the zero
// Digest is no fingerprint both ways; anything but 64 lowercase hex digits
// is refused.
func TestDigestHexRoundTrip(t *testing.T) {
	t.Parallel()
	fp := Fingerprint("s1", "coding", "implement", "Bash", map[string]any{"command": "ls"}, "r", 1)
	d, err := ParseDigest(fp)
	if err != nil || d.String() != fp || d.IsZero() {
		t.Fatalf("ParseDigest(%s) = %s, %v", fp, d, err)
	}
	if d, err := ParseDigest(""); err != nil || !d.IsZero() || d.String() != "" {
		t.Errorf(`ParseDigest("") = %q, %v; want none`, d, err)
	}
	for _, bad := range []string{"f12", strings.Repeat("A", 64), strings.Repeat("0", 63), strings.Repeat("g", 64), fp + "0"} {
		if d, err := ParseDigest(bad); err == nil || !strings.Contains(err.Error(), "not a SHA-256 in lowercase hex") || !d.IsZero() {
			t.Errorf("ParseDigest(%q) = %s, %v", bad, d, err)
		}
	}
}
