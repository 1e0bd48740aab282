package mask_test

import (
	"fmt"

	"github.com/apeval/apeval/internal/mask"
)

func ExampleString() {
	fmt.Println(mask.String("AWS_SECRET_ACCESS_KEY=abc123 curl -H 'Authorization: Bearer tok_42.x' https://bob:pw@e.test/?token=x9f3k2q7"))
	// A secret-named key followed by prose, code or a placeholder stays.
	fmt.Println(mask.String(`to retrieve token statistics. genai.Client(api_key=key); "session_id": "TEST_SESSION"`))
	// Output:
	// AWS_SECRET_ACCESS_KEY=[MASKED] curl -H 'Authorization: Bearer [MASKED]' https://bob:[MASKED]@e.test/?token=[MASKED]
	// to retrieve token statistics. genai.Client(api_key=key); "session_id": "TEST_SESSION"
}

func ExampleURL() {
	fmt.Println(mask.URL("https://alice:pw@llm.example.com/v1?key=sk-abc&api-version=2024-06-01"))
	// Output:
	// https://[MASKED]@llm.example.com/v1?api-version=2024-06-01&key=[MASKED]
}

func ExampleID() {
	fmt.Println(mask.ID("case-7"))
	fmt.Println(mask.ID("run token=Zq8xY2vB7nM4kL1pQ9wE3r"))
	// Output:
	// case-7
	// run token=[MASKED]~aa59e0c000
}
