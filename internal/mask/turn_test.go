package mask

import "testing"

// A message that is only a pasted key is masked whole (the public session's
// UUID-shaped AirNow key went to the judge as the user's message); one-word
// answers that are no credential, and a UUID inside a sentence, stay.
func TestTurnLoneCredential(t *testing.T) {
	for in, want := range map[string]string{
		"7C1D2E4F-90AB-4CDE-8F12-3456789ABCDE":       Masked,
		"  7c1d2e4f-90ab-4cde-8f12-3456789abcde\n":   "  " + Masked + "\n",
		`"a8Kd93jLq02mZx7Pw4Rt"`:                     `"` + Masked + `"`,
		"sk-proj-4f9a8B2c7D1e6F3a9b8C":               Masked,
		"ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R9s": Masked,
		// not credentials
		"yes":                             "yes",
		"src/components/RiskLookup.swift": "src/components/RiskLookup.swift",
		"release-2024-12-candidate":       "release-2024-12-candidate",
		"feature/add-airnow-api-key":      "feature/add-airnow-api-key",
		"https://example.com/docs/v2":     "https://example.com/docs/v2",
		"v1.2.3":                          "v1.2.3",
		"run the tests please":            "run the tests please",
		"look at session 7c1d2e4f-90ab-4cde-8f12-3456789abcde first": "look at session 7c1d2e4f-90ab-4cde-8f12-3456789abcde first",
		// still masked by String inside text
		"my key is sk-proj-4f9a8B2c7D1e6F3a9b8C": "my key is [MASKED]",
	} {
		if got := Turn(in); got != want {
			t.Errorf("Turn(%q) = %q, want %q", in, got, want)
		}
	}
}
