package datasets

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// SessionFilter chooses the sessions a filtered run replays: those holding
// a case with any of Tags, then the first Limit of them (in dataset order)
// or Sample of them drawn with Seed. It chooses whole sessions, so a
// session's trajectory state (boundary crossings, max_fires) is the one a
// full run would have. Limit and Sample exclude each other (the command
// checks that); the zero filter keeps everything.
type SessionFilter struct {
	Tags   []string
	Limit  int
	Sample int
	Seed   uint64
}

// Active reports whether the filter keeps less than every session.
func (f SessionFilter) Active() bool { return len(f.Tags) > 0 || f.Limit > 0 || f.Sample > 0 }

// sampleStream is the PCG stream of --sample ("apeval"): a seed draws the
// same sessions in every version.
const sampleStream = 0x61706576616c

// Select reads r to its end (session IDs and tags only) and chooses the
// sessions; owns, when set, leaves out the sessions of other shards before
// anything is chosen. Invalid lines are skipped: the replay pass reports
// them. It returns nil (every session) when the filter is not active, and
// r's fatal error (an unreadable file) as it is. Tags that no case of the
// dataset carries, in any shard, are an error naming them and the
// dataset's tags: a mistyped --tag would otherwise replay nothing and
// report an empty run as INCONCLUSIVE.
func (f SessionFilter) Select(r *Reader, owns func(sessionID string) bool) (*Selection, error) {
	if !f.Active() {
		return nil, nil
	}
	seen := map[string]bool{}
	perSession := map[string]int64{}
	tagged := map[string]bool{}
	var order []string
	found := map[string]bool{} // every tag of the dataset, in any shard
	for r.Scan() {
		rec := r.Record()
		if rec.Err != nil {
			continue
		}
		c := rec.Case
		for _, tag := range c.Tags {
			found[tag] = true
		}
		if owns != nil && !owns(c.SessionID) {
			continue
		}
		if !seen[c.SessionID] {
			seen[c.SessionID] = true
			order = append(order, c.SessionID)
		}
		perSession[c.SessionID]++
		if len(f.Tags) > 0 && HasAnyTag(c.Tags, f.Tags) {
			tagged[c.SessionID] = true
		}
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	if len(f.Tags) > 0 && !slices.ContainsFunc(f.Tags, func(t string) bool { return found[t] }) {
		return nil, noSuchTag(f.Tags, found)
	}
	if len(f.Tags) > 0 {
		order = slices.DeleteFunc(order, func(id string) bool { return !tagged[id] })
	}
	switch {
	case f.Limit > 0 && f.Limit < len(order):
		order = order[:f.Limit]
	case f.Sample > 0 && f.Sample < len(order):
		rng := rand.New(rand.NewPCG(f.Seed, sampleStream))
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		order = order[:f.Sample]
	}
	sel := &Selection{sessions: make(map[string]bool, len(order)), Tags: f.Tags}
	for _, id := range order {
		sel.sessions[id] = true
		sel.Cases += perSession[id]
	}
	return sel, nil
}

// Selection is the outcome of SessionFilter.Select: the sessions to replay
// and the cases to report. A nil *Selection keeps every session and reports
// every case.
type Selection struct {
	sessions map[string]bool
	// Tags are the filter's tags: of a kept session only the cases holding
	// one are reported (the others are replayed for the session's state).
	Tags []string
	// Cases is the number of cases in the kept sessions, tagged or not (a
	// progress display's total).
	Cases int64
}

// Keeps reports whether the session is replayed.
func (s *Selection) Keeps(sessionID string) bool {
	return s == nil || s.sessions[sessionID]
}

// Reports reports whether a replayed case with these tags is reported.
func (s *Selection) Reports(tags []string) bool {
	return s == nil || len(s.Tags) == 0 || HasAnyTag(tags, s.Tags)
}

// HasAnyTag reports whether have holds any of want.
func HasAnyTag(have, want []string) bool {
	for _, t := range have {
		if slices.Contains(want, t) {
			return true
		}
	}
	return false
}

// noSuchTag is the error of a tag filter that no case matches: the tags
// asked for and (the first 20 of) those the dataset has.
func noSuchTag(asked []string, found map[string]bool) error {
	have := make([]string, 0, len(found))
	for t := range found {
		have = append(have, t)
	}
	slices.Sort(have)
	list := "none"
	if len(have) > 0 {
		if len(have) > 20 {
			list = strings.Join(have[:20], ", ") + fmt.Sprintf(", … (%d in all)", len(have))
		} else {
			list = strings.Join(have, ", ")
		}
	}
	return fmt.Errorf("tag filter %s: no case of the dataset carries it, so nothing would be replayed (the dataset's tags: %s)",
		strings.Join(asked, ", "), list)
}
