package mask

import (
	"strings"
	"testing"
)

// maskerGaps are secrets in shapes the second hardening round found
// reaching the judge and the recording log unmasked (issue 22 point 3):
// the text, the secret that must go, and text that must stay.
var maskerGaps = []struct {
	name, text, secret, keep string
}{
	{"aws configure set", "aws configure set aws_secret_access_key wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY", "aws configure set aws_secret_access_key "},
	{"aws configure set session token", "aws configure set aws_session_token IQoJb3JpZ2luX2VjEHYaCXVzLWVhc3QtMSJH --profile dev", "IQoJb3JpZ2luX2VjEHYaCXVzLWVhc3QtMSJH", "--profile dev"},
	{"PGP private key block", "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF0Ab1cBCADnq8u2Kz9mWp3eR7tY\n=Ab1c\n-----END PGP PRIVATE KEY BLOCK-----", "lQOYBF0Ab1cBCADnq8u2Kz9mWp3eR7tY", "-----BEGIN PGP PRIVATE KEY BLOCK-----"},
	{"URL with empty user", "redis-cli -u redis://:S3cretPw9x@cache:6379/0", "S3cretPw9x", "@cache:6379/0"},
	{"URL password with slash", "psql postgresql://u:ab/cd@h/db", "ab/", "@h/db"},
	{"Slack webhook", "curl -X POST https://hooks.slack.com/services/T01ABCDEF/B02GHIJKL/x7Yz9AbCdEfGhIjKlMnOpQrS -d '{}'", "x7Yz9AbCdEfGhIjKlMnOpQrS", "hooks.slack.com/services/T01ABCDEF/B02GHIJKL/"},
	{"Discord webhook", "curl https://discord.com/api/webhooks/123456789012345678/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcdefghijklmnopqrstuv", "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "discord.com/api/webhooks/123456789012345678/"},
	{"sshpass -p", "sshpass -p Hunter2Pass ssh deploy@web1", "Hunter2Pass", "ssh deploy@web1"},
	{"sshpass -p attached", "sshpass -pHunter2Pass scp f web1:", "Hunter2Pass", "scp f web1:"},
	{"az login -p", "az login --service-principal -u 0f1e2d3c-aaaa-bbbb-cccc-1234567890ab -p S3cr3tAzPw --tenant t", "S3cr3tAzPw", "--tenant t"},
	{"echo | sudo -S", "echo pw | sudo -S apt-get install x", "pw ", "sudo -S apt-get install x"},
	{"printf | sudo -S -k", "printf 'S3cr3t!\\n' | sudo -k -S rm -rf /var/cache", "S3cr3t", "sudo -k -S rm -rf /var/cache"},
}

// Look-alikes of those shapes that hold no secret and must stay as they are.
var maskerGapLookalikes = []string{
	"aws configure set region us-east-1",
	"aws configure set default.s3.max_concurrent_requests 20",
	"curl https://example.com:8080/users/@alice",
	"see https://hooks.slack.com/services/ for the docs",
	"sshpass -e ssh -p 2222 deploy@web1",
	"az login --use-device-code",
	"echo done | sudo tee /etc/motd",
	"-----BEGIN PGP PUBLIC KEY BLOCK-----\nmQENBF0Ab1cBCADnq8u2\n-----END PGP PUBLIC KEY BLOCK-----",
}

func TestMaskerGapsRound2(t *testing.T) {
	for _, g := range maskerGaps {
		got := String(g.text)
		if strings.Contains(got, g.secret) || !strings.Contains(got, g.keep) {
			t.Errorf("%s: %q → %q", g.name, g.text, got)
		}
		if String(got) != got {
			t.Errorf("%s: not idempotent: %q", g.name, got)
		}
	}
	for _, s := range maskerGapLookalikes {
		if got := String(s); got != s {
			t.Errorf("look-alike changed: %q → %q", s, got)
		}
	}
}
