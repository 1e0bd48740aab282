package all

import (
	"reflect"
	"strings"
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

// The help's list of spec forms and the --judge usage come from the
// registry: every backend has its line (a backend without Help is a
// registration to finish), in registry order, and SPEC@URL names exactly
// the backends that take a server of their own.
func TestSpecHelpFromRegistry(t *testing.T) {
	t.Parallel()
	help, usage := judge.SpecHelp(), judge.SpecUsage()
	at := -1
	for _, b := range judge.Backends() {
		if b.Help == "" {
			t.Errorf("backend %s registers no Help: it would be missing from run --help", b.Name)
		}
		form := b.Name
		if b.Form != "" {
			form = b.Form
		} else if b.Arg != "" {
			form += ":" + b.Arg
		}
		i := strings.Index(help, "\n  "+form+" ")
		if i < 0 && strings.HasPrefix(help, "  "+form+" ") {
			i = 0
		}
		if i <= at {
			t.Errorf("%s: not on its own line after the previous backend's (at %d):\n%s", form, i, help)
		}
		at = i
		if !strings.Contains(help, b.Help) || !strings.Contains(usage, form) {
			t.Errorf("%s: help or usage lacks it:\n%s\n%s", b.Name, help, usage)
		}
		if strings.Contains(help, b.Name+":,") || strings.Contains(help, b.Name+": or") || strings.Contains(help, b.Name+": judge") {
			if !b.Server {
				t.Errorf("%s takes no server, but SPEC@URL names it", b.Name)
			}
		} else if b.Server {
			t.Errorf("%s takes a server, but SPEC@URL does not name it:\n%s", b.Name, help)
		}
	}
	if !strings.Contains(help, "  SPEC@URL         an ollama:, openai: or anthropic: judge on its own server") {
		t.Errorf("SPEC@URL line:\n%s", help)
	}
	if !strings.HasSuffix(usage, "; ollama:, openai: and anthropic: take @URL for their own server; repeatable") {
		t.Errorf("usage: %s", usage)
	}
}
