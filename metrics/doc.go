// Package metrics is the fourth stage of the apeval pipeline: it turns
// replay.Results (one case × judge) into confusion counts, rates, latency
// quantiles and confidence intervals per judge × rule, evaluates the kill
// criteria of seed 000 §21.9 and gives the go/no-go verdict (DESIGN §6, §7).
// Reports only format the Summary it produces.
package metrics
