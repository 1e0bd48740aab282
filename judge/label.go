package judge

import (
	"context"
	"io"
)

// WithServer returns j with server in its identity's digest place (after
// the backend's own digest, if any): two judges of one model and prompt on
// two servers — a local vLLM and a hosted endpoint — get two identities,
// openai/qwen2.5-7b@localhost:8000+p1 and openai/qwen2.5-7b@api.example.com+p1,
// and two sets of cache entries. The command uses it only where two
// judges of a run would otherwise share an identity.
func WithServer(j Judge, server string) Judge {
	id := j.Identity()
	if id.Digest != "" {
		id.Digest += "-" + server
	} else {
		id.Digest = server
	}
	return &serverJudge{judge: j, id: id}
}

type serverJudge struct {
	judge Judge
	id    Identity
}

func (s *serverJudge) Identity() Identity { return s.id }
func (s *serverJudge) Unwrap() Judge      { return s.judge }
func (s *serverJudge) Judge(ctx context.Context, req Request) Response {
	return s.judge.Judge(ctx, req)
}

func (s *serverJudge) Details() map[string]string {
	if d, ok := s.judge.(Describer); ok {
		return d.Details()
	}
	return nil
}

func (s *serverJudge) Close() error {
	if c, ok := s.judge.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
