package judge

import (
	"fmt"
	"net/url"
	"strings"
)

// SameJudge is TellApart's error: judges First and Second (indices) have
// one identity and no server to tell them apart.
type SameJudge struct {
	First, Second int
	Identity      string
}

func (e *SameJudge) Error() string {
	return fmt.Sprintf("judges %d and %d are the same judge (%s) on the same server", e.First, e.Second, e.Identity)
}

// TellApart renames the judges of a run that share an identity: each gets
// its server in the identity (WithServer, ServerLabel), so two of one model
// and prompt on two servers are two judges with two sets of cache entries.
// servers[i] is judges[i]'s effective server URL ("" for none). Judges of
// one identity on one server, or without a server, cannot be told apart:
// a *SameJudge error. Judges whose identity is their own are kept as they
// are.
func TellApart(judges []Judge, servers []string) error {
	byID := map[string][]int{}
	var ids []string
	for i, j := range judges {
		id := j.Identity().String()
		if byID[id] == nil {
			ids = append(ids, id)
		}
		byID[id] = append(byID[id], i)
	}
	for _, id := range ids {
		idx := byID[id]
		if len(idx) < 2 {
			continue
		}
		labels := map[string]int{}
		for _, i := range idx {
			l := ServerLabel(servers[i])
			if prev, dup := labels[l]; dup || l == "" {
				if !dup {
					prev = idx[0]
					if prev == i {
						prev = idx[1]
					}
				}
				return &SameJudge{First: prev, Second: i, Identity: id}
			}
			labels[l] = i
		}
		for _, i := range idx {
			judges[i] = WithServer(judges[i], ServerLabel(servers[i]))
		}
	}
	return nil
}

// ServerLabel is a server URL as an identity shows it: host[:port] and,
// when not the usual /v1 or empty, the path ("" without a server).
func ServerLabel(s string) string {
	u, err := url.Parse(s)
	if s == "" || err != nil || u.Host == "" {
		return ""
	}
	p := strings.TrimSuffix(u.Path, "/")
	if p == "" || p == "/v1" {
		return u.Host
	}
	return u.Host + p
}
