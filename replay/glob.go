package replay

import (
	"strings"
	"unicode/utf8"
)

// glob is a compiled glob pattern: `*` matches any run of characters
// (spaces and slashes included: "rm *" matches "rm -rf /tmp/x" and "*.env"
// matches "/srv/app/.env", as permission patterns are written), `?` matches one
// character, `\` makes the next character literal; everything else,
// brackets included, is literal. Matching is case-sensitive, allocation-free
// and linear-time in practice (single backtrack point).
type glob struct {
	toks []globTok
	all  bool // pattern is only stars
}

type globTok struct {
	kind byte // 'l' literal, '?' one character, '*' any run
	lit  string
}

func compileGlob(pattern string) glob {
	var g glob
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			g.toks = append(g.toks, globTok{kind: 'l', lit: lit.String()})
			lit.Reset()
		}
	}
	stars := true
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch {
		case c == '\\' && i+1 < len(pattern):
			i++
			lit.WriteByte(pattern[i])
			stars = false
		case c == '*':
			flush()
			if n := len(g.toks); n == 0 || g.toks[n-1].kind != '*' {
				g.toks = append(g.toks, globTok{kind: '*'})
			}
		case c == '?':
			flush()
			g.toks = append(g.toks, globTok{kind: '?'})
			stars = false
		default:
			lit.WriteByte(c)
			stars = false
		}
	}
	flush()
	g.all = stars && len(g.toks) > 0
	return g
}

func (g *glob) match(s string) bool {
	if g.all {
		return true
	}
	toks := g.toks
	ti, si := 0, 0
	starTi, starSi := -1, 0
	for {
		if ti < len(toks) {
			t := &toks[ti]
			switch t.kind {
			case '*':
				if ti == len(toks)-1 {
					return true // a trailing star takes the rest
				}
				starTi, starSi = ti, si
				ti++
				continue
			case '?':
				if si < len(s) {
					_, w := utf8.DecodeRuneInString(s[si:])
					si += w
					ti++
					continue
				}
			default:
				if strings.HasPrefix(s[si:], t.lit) {
					si += len(t.lit)
					ti++
					continue
				}
			}
		} else if si == len(s) {
			return true
		}
		if starTi < 0 || starSi >= len(s) {
			return false
		}
		_, w := utf8.DecodeRuneInString(s[starSi:])
		starSi += w
		si, ti = starSi, starTi+1
	}
}
