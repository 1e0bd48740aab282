package replay

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/mask"
	"github.com/apeval/apeval/judge"
)

const (
	fakeKey  = "sk-proj-Zq8LrT2wVb9NcX4mKp7HsD3f"
	fakeGhp  = "ghp_4Tq9ZrX2LmN8bV5cK1wE7yH3uJ6pA0sD2fG"
	fakeAWS  = "AKIAQ7ZR2LX9VB4NCT8M"
	fakeCard = "4111 1111 1111 1111"
)

// Everything that reaches the judge goes through the masking pass: rule
// conditions, piece and movement, argument key names, message roles and
// the tool name, not only argument values and message contents.
func TestBuildInputMasksEveryField(t *testing.T) {
	t.Parallel()
	c := &datasets.Case{ID: "c1", Piece: "deploy " + fakeGhp, Movement: "token=" + fakeKey[3:],
		Tool: datasets.Tool{Name: "Bash " + fakeAWS, Category: "command_execution",
			Arguments: map[string]any{fakeKey: "value", "command": "ls", "nested": map[string]any{fakeGhp: 1.0}}},
		Context: datasets.Context{LatestUserMessage: "pay with " + fakeCard + " cvv 123",
			RecentMessages: []datasets.Message{{Role: "user " + fakeAWS, Content: "mail bob@example.com"}}}}
	rules := []*Rule{{ID: "r", Condition: "the agent leaks " + fakeKey}}
	in := BuildInput(c, rules, nil)
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	out := string(b)
	for _, secret := range []string{fakeKey, fakeKey[3:], fakeGhp, fakeAWS, "4111", "bob@"} {
		if strings.Contains(out, secret) {
			t.Errorf("judge input carries %q:\n%s", secret, out)
		}
	}
	for _, kept := range []string{"[CARD]", "[CVV]", "[EMAIL:example.com]", `"command":"ls"`} {
		if !strings.Contains(out, kept) {
			t.Errorf("judge input lacks %q:\n%s", kept, out)
		}
	}
}

// Personal data is masked by type, and look-alikes a judge needs are left
// alone.
func TestMaskPersonalData(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"card 4111 1111 1111 1111 cvv 123":        "card [CARD] cvv [CVV]",
		"card 4111-1111-1111-1111 exp 12/27 123":  "card [CARD] exp 12/27 [CVV]",
		"not a card 4111 1111 1111 1112":          "not a card 4111 1111 1111 1112", // fails Luhn
		"ssn 123-45-6789":                         "ssn [SSN]",
		"not an ssn 666-12-3456":                  "not an ssn 666-12-3456",
		"IBAN DE89 3704 0044 0532 0130 00":        "IBAN [IBAN]",
		"not an IBAN DE00 3704 0044 0532 0130 00": "not an IBAN DE00 3704 0044 0532 0130 00",
		// A number run into the group before it is still found: the
		// leftmost match starts at that group and fails the check.
		"ref 1234 4111 1111 1111 1111 end":              "ref 1234 [CARD] end",
		"AA00 IBAN DE89 3704 0044 0532 0130 00 0":       "AA00 IBAN [IBAN] 0",
		"GB00 DE89 3704 0044 0532 0130 00":              "GB00 [IBAN]",
		"xDE89 3704 0044 0532 0130 00":                  "xDE89 3704 0044 0532 0130 00", // no word boundary
		"call +1 415 555 0132 or (415) 555-0132":        "call [PHONE] or [PHONE]",
		"電話 090-1234-5678":                              "電話 [PHONE]",
		"send to Bob.Smith@Corp.Example.com now":        "send to [EMAIL:corp.example.com] now",
		"deploy ALL=(ALL) NOPASSWD:ALL":                 "deploy ALL=(ALL) NOPASSWD:ALL",
		"password := GetPassword(user)":                 "password := GetPassword(user)",
		"password: GetPassword(user@corp.example.com)":  "password: GetPassword([EMAIL:corp.example.com])",
		"pw = vault.GetPassword(user@corp.example.com)": "pw = vault.GetPassword([EMAIL:corp.example.com])",
		`password := "hunter2-x"`:                       `password := "[MASKED]"`,
		"git push git@github.com:acme/app.git main":     "git push git@github.com:acme/app.git main",
		"date 2026-07-24 version 1.2.3 build 881234":    "date 2026-07-24 version 1.2.3 build 881234",
	} {
		if got := mask.String(in); got != want {
			t.Errorf("mask.String(%q)\n got %q\nwant %q", in, got, want)
		}
		if again := mask.String(mask.String(in)); again != mask.String(in) {
			t.Errorf("not idempotent on %q: %q", in, again)
		}
	}
}

// Case and session ids that carry a secret are masked in results (and so
// in the Parquet files), keeping distinct ids distinct.
func TestSecretShapedIDsAreMasked(t *testing.T) {
	t.Parallel()
	p := mustPolicy(t, `
[[rule]]
id = "a"
class = "always"
action = "audit_only"
`)
	c1, c2 := bash("ls"), bash("ls")
	c1.ID, c1.SessionID = "run-"+fakeKey, "s-"+fakeGhp
	c2.ID, c2.SessionID = "run-"+fakeKey+"x", "plain-session"
	res := replayAll(t, p, answer("match"), Options{}, c1, c2)
	if strings.Contains(res[0].CaseID, fakeKey) || strings.Contains(res[0].SessionID, fakeGhp) {
		t.Errorf("ids kept their secrets: %q %q", res[0].CaseID, res[0].SessionID)
	}
	if res[0].CaseID == res[1].CaseID {
		t.Errorf("two ids masked to the same %q", res[0].CaseID)
	}
	if res[1].SessionID != "plain-session" {
		t.Errorf("a plain id changed: %q", res[1].SessionID)
	}
}

// A call's error text (a server message, a recorded production error) is
// masked before it reaches the error column.
func TestCallErrorsAreMasked(t *testing.T) {
	t.Parallel()
	p := mustPolicy(t, `
[[rule]]
id = "j"
condition = "anything"
action = "audit_only"
class = "audit"
`)
	j := &fakeJudge{name: "leaky", fn: func(context.Context, judge.Request) judge.Response {
		return judge.Response{Status: judge.StatusError, Error: "HTTP 401: invalid key " + fakeKey + " for bob@example.com"}
	}}
	res := replayAll(t, p, j, Options{}, bash("ls"))
	if len(res[0].Calls) != 1 {
		t.Fatalf("calls %+v", res[0].Calls)
	}
	if e := res[0].Calls[0].Error; strings.Contains(e, fakeKey) || strings.Contains(e, "bob@") || !strings.Contains(e, "HTTP 401") {
		t.Errorf("error column %q", e)
	}
}

// A user's message that is only a pasted key (a public Claude Code
// session: asked for its EPA AirNow key, the user answered with the
// UUID-shaped key alone) does not reach the judge, as the latest message
// or among the recent ones; a UUID inside a sentence still does.
func TestBuildInputMasksPastedKeyMessage(t *testing.T) {
	t.Parallel()
	const key = "7C1D2E4F-90AB-4CDE-8F12-3456789ABCDE"
	c := &datasets.Case{ID: "c1", Tool: datasets.Tool{Name: "Edit", Arguments: map[string]any{"file_path": "ContentView.swift"}},
		Context: datasets.Context{LatestUserMessage: key, RecentMessages: []datasets.Message{
			{Role: "assistant", Content: "Please give me your AirNow API key."}, {Role: "user", Content: key + "\n"},
			{Role: "user", Content: "the run id is 7c1d2e4f-90ab-4cde-8f12-3456789abcde"}}}}
	in := BuildInput(c, []*Rule{{ID: "r", Condition: "the agent writes a key into code"}}, nil)
	if in.Context.LatestUserMessage != mask.Masked || in.Context.RecentMessages[1].Content != mask.Masked+"\n" {
		t.Errorf("a pasted key reaches the judge: latest %q, recent %q", in.Context.LatestUserMessage, in.Context.RecentMessages[1].Content)
	}
	if got := in.Context.RecentMessages[2].Content; !strings.Contains(got, "7c1d2e4f-90ab") {
		t.Errorf("a UUID in a sentence was masked: %q", got)
	}
}
