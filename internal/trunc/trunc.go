// Package trunc shortens text for messages, prompts and pages, marking the
// cut with "…". The three limits are not one: a page's cell has a width
// (Width: the mark is inside it), a judge input field keeps a number of
// characters of content (Runes: the mark comes after them), and an error
// text has a size (Bytes: cut on a character boundary, the mark after).
// Each is used where that limit is the one a reader was promised, so they
// are kept apart; none of them ever splits a UTF-8 sequence.
//
// Where to look:
//
//	trunc.go       Width, Runes, Bytes; List (the first n items of a list, "and K more")
//	trunc_test.go  their edges: exact fits, one over, multi-byte characters
package trunc

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Mark ends every shortened text.
const Mark = "…"

// Width returns s if it has at most n runes, else its first n-1 runes and
// the mark: n runes in all, for a cell or a line of fixed width.
func Width(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + Mark
}

// Runes returns s if it has at most n runes, else its first n runes and
// the mark: n runes of content are kept (a judge input field, a message).
func Runes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	count := 0
	for i := range s {
		if count == n {
			return s[:i] + Mark
		}
		count++
	}
	return s
}

// Bytes returns s if it has at most n bytes, else its longest prefix of at
// most n bytes that ends on a character boundary, and the mark.
func Bytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + Mark
}

// List joins items with ", ", at most n of them, saying how many more
// there are ("a, b and 3 more"): a message naming what it found.
func List(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}
