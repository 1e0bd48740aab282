package core

// AskedIDs lists the rule IDs of an input in order, without duplicates.
func AskedIDs(in Input) []string {
	ids := make([]string, 0, len(in.Rules))
	seen := make(map[string]bool, len(in.Rules))
	for _, r := range in.Rules {
		if !seen[r.ID] {
			seen[r.ID] = true
			ids = append(ids, r.ID)
		}
	}
	return ids
}
