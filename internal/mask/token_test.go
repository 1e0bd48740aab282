package mask

import "testing"

func TestHasToken(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"curl -H 'Authorization: Bearer [MASKED]'": true,
		"pay with [CARD] cvv [CVV]":                true,
		"mail [EMAIL:example.com]":                 true,
		"ssn [SSN], iban [IBAN], call [PHONE]":     true,
		"arr[0] = [1, 2]":                          false,
		"[MASK] [EMAIL] plain text":                false,
		"":                                         false,
	} {
		if got := HasToken(s); got != want {
			t.Errorf("HasToken(%q) = %v, want %v", s, got, want)
		}
	}
	// What String leaves always has one.
	for _, s := range []string{"token=" + "ghp_4Tq9ZrX2LmN8bV5cK1wE7yH3uJ6pA0sD2fG", "card 4111 1111 1111 1111", "mail bob@example.com"} {
		if m := String(s); !HasToken(m) {
			t.Errorf("String(%q) = %q: no token found", s, m)
		}
	}
}
