package datasets

import "strconv"

var (
	messageFields  = [...]string{"role", "content"}
	recordedFields = [...]string{"judge", "latency_ms", "status", "error", "prompt_tokens", "completion_tokens", "decisions"}
	decisionFields = [...]string{"rule_id", "result", "confidence"}
)

// array reads a JSON array whose elements elem reads; like strs, an empty
// array is an empty, non-nil slice as encoding/json makes it.
func (p *caseParser) array(elem func() bool) bool {
	p.ws()
	if !p.eat('[') {
		return false
	}
	p.ws()
	if p.eat(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		p.ws()
		if p.eat(']') {
			return true
		}
		if !p.eat(',') {
			return false
		}
	}
}

// float64 reads a number as encoding/json does into a float64 field; out of
// range gives up.
func (p *caseParser) float64(dst *float64) bool {
	p.ws()
	start := p.i
	if !p.number() {
		return false
	}
	f, err := strconv.ParseFloat(string(p.b[start:p.i]), 64)
	*dst = f
	return err == nil
}

func (p *caseParser) messages(dst *[]Message) bool {
	out := []Message{}
	ok := p.array(func() bool {
		var m Message
		ok := p.fields(messageFields[:], func(f int) bool {
			if f == 0 {
				return p.str(&m.Role)
			}
			return p.str(&m.Content)
		})
		out = append(out, m)
		return ok
	})
	*dst = out
	return ok
}

func (p *caseParser) recorded(dst *[]Recorded) bool {
	out := []Recorded{}
	ok := p.array(func() bool {
		var r Recorded
		ok := p.fields(recordedFields[:], func(f int) bool {
			switch f {
			case 0:
				return p.str(&r.Judge)
			case 1:
				return p.float64(&r.LatencyMS)
			case 2:
				return p.str(&r.Status)
			case 3:
				return p.str(&r.Error)
			case 4, 5:
				var v int64
				if !p.int64(&v) {
					return false
				}
				if f == 4 {
					r.PromptTokens = int(v)
				} else {
					r.CompletionTokens = int(v)
				}
				return true
			}
			r.Decisions = []RecordedDecision{}
			return p.array(func() bool {
				var d RecordedDecision
				ok := p.fields(decisionFields[:], func(f int) bool {
					switch f {
					case 0:
						return p.str(&d.RuleID)
					case 1:
						return p.str(&d.Result)
					}
					d.Confidence = new(float64)
					return p.float64(d.Confidence)
				})
				r.Decisions = append(r.Decisions, d)
				return ok
			})
		})
		out = append(out, r)
		return ok
	})
	*dst = out
	return ok
}
