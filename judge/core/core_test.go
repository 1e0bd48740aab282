package core

import (
	"strings"
	"testing"
)

func TestCheckReportMaskedHidesSecrets(t *testing.T) {
	key := "sk-" + strings.Repeat("a1B2", 10)
	r := CheckReport{Error: "401: bad key " + key, SampleError: "echo " + key, Notes: []string{"server said " + key, "fine"}}
	m := r.Masked()
	for _, s := range append([]string{m.Error, m.SampleError}, m.Notes...) {
		if strings.Contains(s, key) {
			t.Errorf("not masked: %q", s)
		}
	}
	if m.Notes[1] != "fine" || !strings.HasPrefix(m.Error, "401: bad key ") {
		t.Errorf("masked too much: %+v", m)
	}
	if !strings.Contains(r.Notes[0], key) {
		t.Error("Masked changed the report it was called on")
	}
}
