package main

import "github.com/apeval/apeval/replay"

// resultSink is anything that takes every replayed result: the metrics
// Accumulator, the gate summary. A run, report or merge fans each result
// out to its sinks and does not need to know who listens (vegeta's
// Add/Close style; each sink is closed by whoever reads it).
type resultSink interface {
	Add(r *replay.Result)
}

// sinks fans a result out to several sinks, in order.
type sinks []resultSink

// Add hands r to every sink.
func (s sinks) Add(r *replay.Result) {
	for _, k := range s {
		k.Add(r)
	}
}
