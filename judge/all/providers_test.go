package all

import (
	"reflect"
	"testing"

	"github.com/apeval/apeval/judge"
)

// The OpenTelemetry provider names come from the backends' registrations:
// the GenAI conventions' well-known values, none for exec, recorded, none.
func TestProviders(t *testing.T) {
	t.Parallel()
	want := map[string]string{"ollama": "ollama", "openai": "openai", "anthropic": "anthropic"}
	if got := judge.Providers(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Providers() = %v, want %v", got, want)
	}
}
