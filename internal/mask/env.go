package mask

import (
	"net/url"
	"os"
	"regexp"
	"sort"
	"strings"
)

// Env masks what the cloud SDKs apeval links may quote from the
// environment, which String does not recognise (String already hides
// user:password@ and query values whose key names a secret: sig=,
// sas_token=, …):
//   - the fields of an Azure connection string that are secrets
//     (AccountKey=…; SharedAccessSignature=…);
//   - the literal value of every credential variable set in the
//     environment (AZURE_STORAGE_KEY, the SAS token and its signature,
//     AWS_SECRET_ACCESS_KEY, …), however an SDK quotes it in an error: a
//     transport error of the Azure SDK, for one, carries the request's URL,
//     and with AZURE_STORAGE_SAS_TOKEN that URL holds the token.
//
// Google credentials travel only as bearer tokens in request headers,
// which neither the storage client's errors nor apeval's messages include.
// The environment is read on every call (errors and URLs are few), so a
// variable set later is masked too.
func Env(s string) string {
	for _, v := range envSecrets() {
		s = strings.ReplaceAll(s, v, Masked)
	}
	return connSecretRe.ReplaceAllString(s, "${1}="+Masked)
}

// Message masks a message or URL that may quote a credential from the
// environment (an object-storage URL, a cloud SDK's error): Env, then
// String.
func Message(s string) string { return String(Env(s)) }

// secretEnv names the environment variables that hold credentials.
var secretEnv = []string{
	"AZURE_STORAGE_KEY",
	"AZURE_STORAGE_SAS_TOKEN",
	"AZURE_STORAGE_CONNECTION_STRING",
	"AZURE_STORAGEBLOB_CONNECTIONSTRING",
	"AZURE_CLIENT_SECRET",
	"AWS_SECRET_ACCESS_KEY",
	"AWS_SESSION_TOKEN",
}

// connSecretRe finds the secret fields of an Azure connection string.
var connSecretRe = regexp.MustCompile(`(?i)\b(AccountKey|SharedAccessSignature|SharedAccessKey)=([^;\s"']+)`)

// envSecrets lists the secret values in the environment, longest first
// (so a token is replaced whole before a part of it), each also in its
// URL-escaped forms. Values under 8 bytes are left alone: they are not
// credentials, and replacing them would mangle ordinary text.
func envSecrets() []string {
	var out []string
	add := func(v string) {
		for _, f := range []string{v, url.QueryEscape(v), url.PathEscape(v)} {
			if len(f) >= 8 {
				out = append(out, f)
			}
		}
	}
	for _, name := range secretEnv {
		v := os.Getenv(name)
		if v == "" {
			continue
		}
		add(v)
		if q, err := url.ParseQuery(strings.TrimPrefix(v, "?")); err == nil {
			add(q.Get("sig")) // a SAS token's signature, wherever the SDK puts it
		}
		for _, m := range connSecretRe.FindAllStringSubmatch(v, -1) {
			add(m[2])
			if q, err := url.ParseQuery(m[2]); err == nil {
				add(q.Get("sig"))
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}
