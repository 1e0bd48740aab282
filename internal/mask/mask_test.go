package mask

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestMaskString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind, in, want string
	}{
		{"openai key", "export OPENAI=sk-proj-abcdefghijklmnop1234", "export OPENAI=[MASKED]"},
		{"openai key bare", "use sk-abcdefghijklmnopqrstuv now", "use [MASKED] now"},
		{"aws key id", "id AKIAIOSFODNN7EXAMPLE here", "id [MASKED] here"},
		{"github token", "git clone https://ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/x", "git clone https://[MASKED]@github.com/x"},
		{"slack token", "xoxb-123456789012-abcdefghij", "[MASKED]"},
		{"google key", "AIzaSyA1234567890abcdefghijklmnopqrstuv", "[MASKED]"},
		{"jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "[MASKED]"},
		{"bearer", `curl -H "Authorization: Bearer abc.def-123456"`, `curl -H "Authorization: Bearer [MASKED]"`},
		{"basic auth header", "Authorization: Basic dXNlcjpwYXNz", "Authorization: Basic [MASKED]"},
		{"basic word kept", "basic operations only", "basic operations only"},
		{"password kv", "login password=hunter2 now", "login password=[MASKED] now"},
		{"password colon", "password: hunter2", "password: [MASKED]"},
		{"json password", `{"password": "hunter2", "user": "bob"}`, `{"password": "[MASKED]", "user": "bob"}`},
		{"password flag", "mysql --password hunter2 db", "mysql --password [MASKED] db"},
		{"mysql -p", "mysql -u root -phunter2 db", "mysql -u root -p[MASKED] db"},
		{"url userinfo", "postgres://app:s3cr3t@db:5432/x", "postgres://app:[MASKED]@db:5432/x"},
		{"curl -u", "curl -u admin:hunter2 https://e.test", "curl -u admin:[MASKED] https://e.test"},
		{"url query token", "https://e.test/cb?token=abc123&page=2", "https://e.test/cb?token=[MASKED]&page=2"},
		{"url query api_key", "https://e.test/?api_key=k3Yz9QxW&q=go", "https://e.test/?api_key=[MASKED]&q=go"},
		{"url query api_key placeholder kept", "https://e.test/?api_key=XYZ&q=go", "https://e.test/?api_key=XYZ&q=go"},
		{"url query access_token", "?access_token=ya29.a0AfH6SM", "?access_token=[MASKED]"},
		{"url query sig", "https://bucket.test/o?X-Amz-Signature=abcd1234&sig=ffee00", "https://bucket.test/o?X-Amz-Signature=[MASKED]&sig=[MASKED]"},
		{"env aws secret", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY aws s3 ls", "AWS_SECRET_ACCESS_KEY=[MASKED] aws s3 ls"},
		{"env token", "FOO_TOKEN=abc123 ./run", "FOO_TOKEN=[MASKED] ./run"},
		{"export password", "export X_PASSWORD='p a s s'", "export X_PASSWORD='[MASKED]'"},
		{"db pass", "DB_PASS=letmein", "DB_PASS=[MASKED]"},
		{"pem", "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----\nend",
			"key:\n-----BEGIN RSA PRIVATE KEY-----[MASKED]-----END RSA PRIVATE KEY-----\nend"},
		{"pem cut off", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA",
			"-----BEGIN OPENSSH PRIVATE KEY-----[MASKED]-----END OPENSSH PRIVATE KEY-----"},
		{"loose token", "my token is a8f5f167f44f4964e6c998dee827110c", "my token is [MASKED]"},
		{"loose words kept", "the token expires tomorrow afternoon", "the token expires tomorrow afternoon"},
		{"plain text kept", "rm -rf build && go test ./...", "rm -rf build && go test ./..."},
		{"monkey kept", "monkey=banana author=bob", "monkey=banana author=bob"},
		{"japanese kept", "ビルドを削除して", "ビルドを削除して"},
		{"trigger inside a word kept", "task-abcdefghijklmnopqrstuvwx", "task-abcdefghijklmnopqrstuvwx"},
		{"token flag", "deploy --token abc123 --env prod", "deploy --token [MASKED] --env prod"},
		{"token flag at start", "-token abc123", "-token [MASKED]"},
		{"two pems", "-----BEGIN PRIVATE KEY-----\nAAA\n-----END PRIVATE KEY-----\nx\n-----BEGIN EC PRIVATE KEY-----\nBBB\n-----END EC PRIVATE KEY-----",
			"-----BEGIN PRIVATE KEY-----[MASKED]-----END PRIVATE KEY-----\nx\n-----BEGIN EC PRIVATE KEY-----[MASKED]-----END EC PRIVATE KEY-----"},
		{"public key kept", "-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----", "-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----"},
		{"upper-case secret word", "TOKEN a8f5f167f44f4964e6c998dee827110c", "TOKEN [MASKED]"},
		{"non-ASCII before a secret", "日本語 password=ひみつ123 終わり", "日本語 password=[MASKED] 終わり"},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			got := String(tt.in)
			if got != tt.want {
				t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			if again := String(got); again != got {
				t.Errorf("not idempotent: %q → %q", got, again)
			}
		})
	}
}

func TestMaskValue(t *testing.T) {
	t.Parallel()
	in := map[string]any{
		"command":       "curl -H 'Authorization: Bearer tok_1234567890' https://e.test",
		"password":      "plain words",
		"api_key":       42.0,
		"Authorization": "whatever",
		"headers":       map[string]any{"X-Secret": "v", "Accept": "json"},
		"list":          []any{"sk-abcdefghijklmnopqrstu", 1.0, nil},
		"max_count":     3.0,
		"env":           map[string]string{"GITHUB_TOKEN": "x", "URL": "https://u:p4ss@h"},
	}
	orig, _ := json.Marshal(in)
	out := Value(in).(map[string]any)
	after, _ := json.Marshal(in)
	if string(orig) != string(after) {
		t.Fatal("Value modified its input")
	}
	want := map[string]any{
		"command":       "curl -H 'Authorization: Bearer [MASKED]' https://e.test",
		"password":      Masked,
		"api_key":       Masked,
		"Authorization": Masked,
		"headers":       map[string]any{"X-Secret": Masked, "Accept": "json"},
		"list":          []any{Masked, 1.0, nil},
		"max_count":     3.0,
		"env":           map[string]any{"GITHUB_TOKEN": Masked, "URL": "https://u:[MASKED]@h"},
	}
	g, _ := json.Marshal(out)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Errorf("Value\n got %s\nwant %s", g, w)
	}
}

// plantedSecrets are secrets of every kind the masker promises to remove;
// the part after "|" must never survive.
var plantedSecrets = []string{
	"sk-|Zq8xY2vB7nM4kL1pQ9wE3r",
	"AKIA|Q3ZT7KXW2M9PL4RB",
	"ghp_|a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
	"password=|Hunter2xyzzy",
	"Authorization: Bearer |Tk9.abc-DEF_123456",
	"https://bob:|S3cretPassw0rd@host/x",
	"?access_token=|ya29Xq8ZK21mn",
	"AWS_SECRET_ACCESS_KEY=|wJalrXUtnFEMI9K7MDENG",
	"-----BEGIN PRIVATE KEY-----\n|MIIEvQIBADANBgkqhkiG9w0BAQEF\n-----END PRIVATE KEY-----",
	// Personal data (mask_pii.go).
	"pay with |4111 1111 1111 1111",
	"ssn |123-45-6789",
	"write to |bob.smith@example.com",
	"IBAN |DE89 3704 0044 0532 0130 00",
	// The shapes of the second hardening round (gaps_test.go).
	"aws configure set aws_secret_access_key |wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY",
	"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n|lQOYBF0Ab1cBCADnq8u2Kz9mWp3eR7tY\n-----END PGP PRIVATE KEY BLOCK-----",
	"redis://:|S3cretPw9x@cache:6379",
	"postgresql://u:|ab/cd9Xq@h/db",
	"https://hooks.slack.com/services/T01ABCDEF/B02GHIJKL/|x7Yz9AbCdEfGhIjKlMnOpQrS",
	"https://discord.com/api/webhooks/123456789012345678/|AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcdefghij",
	"sshpass -p |Hunter2Pass ssh deploy@web1",
	"az login --service-principal -u app -p |S3cr3tAzPw",
	"echo |Tr0ub4dor | sudo -S true",
}

func FuzzMaskString(f *testing.F) {
	f.Add("plain text", 0, "more")
	f.Add("{\"a\":\"", 3, "\"}")
	f.Add("x=", 5, "&y=2")
	for i := range plantedSecrets {
		if i >= 13 { // one seed per shape of the second hardening round
			f.Add("cmd:", i, "; next")
		}
	}
	f.Fuzz(func(t *testing.T, prefix string, which int, suffix string) {
		if which < 0 {
			which = -which
		}
		planted := plantedSecrets[which%len(plantedSecrets)]
		bar := strings.IndexByte(planted, '|')
		secret := planted[bar+1:]
		if i := strings.Index(secret, "\n"); i >= 0 {
			secret = secret[:i]
		}
		in := prefix + " " + strings.Replace(planted, "|", "", 1) + " " + suffix
		got := String(in)
		if strings.Contains(got, secret) {
			t.Fatalf("secret %q survived in %q", secret, got)
		}
		if again := String(got); again != got {
			t.Fatalf("not idempotent:\n%q\n%q", got, again)
		}
		// Arbitrary text is idempotent too.
		once := String(prefix + suffix)
		if String(once) != once {
			t.Fatalf("not idempotent on %q", prefix+suffix)
		}
	})
}

// The quick filter before masking an id is exactly "13 bytes or more, or
// one of = : @ space".
func TestMayHoldSecret(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "c-0000001", "s-000000", "a=b", ":", "x@y", "a b", "abcdefghijkl",
		"abcdefghijklm", "é=", "\x00\xff", "tab\there", "=", "aaaaaaaaaaa@", "@aaaaaaaaaaa"} {
		want := len(s) >= 13 || strings.ContainsAny(s, "=:@ ")
		if got := mayHoldSecret(s); got != want {
			t.Errorf("mayHoldSecret(%q) = %v, want %v", s, got, want)
		}
	}
}
