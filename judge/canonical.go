package judge

import (
	"strconv"

	"github.com/apeval/apeval/internal/jcs"
)

// Canonical is the JCS writer (internal/jcs) with a fast path for the
// judge input, which the response cache keys on. The zero value is ready;
// it is not safe for concurrent use.
type Canonical struct {
	jcs.Writer
}

// AppendInput appends the JCS form of a judge input: byte for byte what
// jcs.Transform(json.Marshal(in)) gives (a test holds it to that), without
// the generic parse. Object keys are written in RFC 8785 order.
func (c *Canonical) AppendInput(b []byte, in Input) []byte {
	b = append(b, `{"context":{"approval_state":`...)
	b = jcs.AppendString(b, in.Context.ApprovalState)
	b = append(b, `,"latest_user_message":`...)
	b = jcs.AppendString(b, in.Context.LatestUserMessage)
	b = append(b, `,"previous_rule_fires":`...)
	if in.Context.PreviousRuleFires == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, f := range in.Context.PreviousRuleFires {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"count":`...)
			b = strconv.AppendInt(b, int64(f.Count), 10)
			b = append(b, `,"rule_id":`...)
			b = jcs.AppendString(b, f.RuleID)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"recent_messages":`...)
	if in.Context.RecentMessages == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, m := range in.Context.RecentMessages {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"content":`...)
			b = jcs.AppendString(b, m.Content)
			b = append(b, `,"role":`...)
			b = jcs.AppendString(b, m.Role)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `},"current":{"hook_point":`...)
	b = jcs.AppendString(b, in.Current.HookPoint)
	b = append(b, `,"movement":`...)
	b = jcs.AppendString(b, in.Current.Movement)
	b = append(b, `,"piece":`...)
	b = jcs.AppendString(b, in.Current.Piece)
	b = append(b, `,"tool":{"arguments":`...)
	if in.Current.Tool.Arguments == nil {
		b = append(b, "null"...)
	} else {
		b = c.AppendValue(b, in.Current.Tool.Arguments)
	}
	b = append(b, `,"arguments_summary":`...)
	b = jcs.AppendString(b, in.Current.Tool.ArgumentsSummary)
	b = append(b, `,"category":`...)
	b = jcs.AppendString(b, in.Current.Tool.Category)
	b = append(b, `,"name":`...)
	b = jcs.AppendString(b, in.Current.Tool.Name)
	b = append(b, `}},"rules":`...)
	if in.Rules == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, r := range in.Rules {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"condition":`...)
			b = jcs.AppendString(b, r.Condition)
			b = append(b, `,"id":`...)
			b = jcs.AppendString(b, r.ID)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"version":`...)
	b = strconv.AppendInt(b, int64(in.Version), 10)
	return append(b, '}')
}
