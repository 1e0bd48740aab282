package judge

import (
	"reflect"
	"testing"
	"time"
)

func TestParseOptionValue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want any
	}{
		{"true", true}, {"false", false}, {"0", int64(0)}, {"4096", int64(4096)}, {"-1", int64(-1)},
		{"0.2", 0.2}, {"1e3", 1000.0}, {"10m", "10m"}, {"True", "True"}, {"", ""}, {"high", "high"},
	}
	for _, tt := range tests {
		if got := parseOptionValue(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("parseOptionValue(%q) = %#v, want %#v", tt.in, got, tt.want)
		}
	}
}

func TestRetryBackoff(t *testing.T) {
	t.Parallel()
	want := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond,
		800 * time.Millisecond, 1600 * time.Millisecond, 2 * time.Second, 2 * time.Second}
	for i, w := range want {
		if got := retryBackoff(i + 1); got != w {
			t.Errorf("retryBackoff(%d) = %v, want %v", i+1, got, w)
		}
	}
	if got := retryBackoff(80); got != 2*time.Second {
		t.Errorf("retryBackoff(80) = %v", got)
	}
}
