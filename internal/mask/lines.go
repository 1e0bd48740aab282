package mask

import "strings"

// Lines is the masking pass over a message, line by line: a multi-line
// error lists separate problems, and a secret word ending one line
// ("unknown key") says nothing about the path starting the next.
func Lines(s string) string {
	if !strings.Contains(s, "\n") {
		return String(s)
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = String(l)
	}
	return strings.Join(lines, "\n")
}
