// Package mask is apeval's one masking pass: everything that leaves apeval
// for a judge, a report, the response cache or a log goes through it
// (docs/safety.md). It sits beside the pipeline, imported by every stage
// that lets text out: datasets/importers (imported cases), replay (the
// judge input, result ids and error columns), judge (its base URLs and
// transport errors), internal/objstore (storage URLs and SDK errors), the
// reports and the command layer (run.json).
//
// One token policy: a secret becomes [Masked] ("[MASKED]"), the key or
// scheme around it kept ("password=[MASKED]", "https://[MASKED]@host"), so
// a judge still sees that a secret was there; personal data becomes a typed
// token ([MaskedCard], [MaskedSSN], …, "[EMAIL:domain]").
//
// # Where to look
//
//	mask.go   String (secrets in text, rule by rule, idempotent; every
//	          rule's triggers found in one pass, findTriggers), Value
//	          (argument trees, secret-named keys masked whole), HasToken
//	lines.go  Lines: String line by line, for multi-line messages; Writer (a masked log)
//	pii.go    personal data by type; ID (masked ids keep a short digest)
//	url.go    URL and URLs: credentials of URLs a user gave apeval to call
//	env.go    Env and Message: credential values from the environment and
//	          Azure connection-string fields, for storage URLs and SDK errors
//	secret.go Secret: a secret apeval itself holds (the API key it sends), masked by value
//	turn.go   Turn: a conversation message, with a message that is only a pasted key masked whole
//	value.go  when a value after a secret-named key is masked
//	testdata  secrets.jsonl, the labeled corpus TestMaskerCorpus and
//	          make bench score
package mask
