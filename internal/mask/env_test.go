package mask

import (
	"strings"
	"testing"
)

// Throwaway values shaped like the real ones.
const (
	testAccountKey = "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6QUJDREVGR0g=="
	testSig        = "k3Y%2Fs1gn4tUr3ValueXyZ%3D"
	testSAS        = "sv=2023-11-03&ss=b&srt=sco&sp=rwdlac&se=2030-01-01T00%3A00%3A00Z&sig=" + testSig
)

func TestMessageScrubsCloudSecrets(t *testing.T) {
	t.Setenv("AZURE_STORAGE_KEY", testAccountKey)
	t.Setenv("AZURE_STORAGE_SAS_TOKEN", testSAS)
	t.Setenv("AZURE_STORAGE_CONNECTION_STRING", "")
	for _, s := range []string{
		// A connection string whose key is not in the environment.
		"DefaultEndpointsProtocol=http;AccountName=acct;AccountKey=c2VjcmV0a2V5dGhhdGlzbm90aW50aGVlbnY=;BlobEndpoint=http://127.0.0.1:10000/acct;",
		"BlobEndpoint=https://acct.blob.core.windows.net/;SharedAccessSignature=sv=2023-11-03&sig=QWxsWW91ck5hbWVz",
		// The key and the SAS signature from the environment, as an SDK
		// may quote them: raw, URL-escaped, inside a request URL.
		"shared key " + testAccountKey + " rejected",
		`Put "http://127.0.0.1:9/acct/ctr/k?comp=block&` + testSAS + `": connection refused`,
		`Put "http://127.0.0.1:9/acct/ctr/k?sig=` + testSig + `&sv=2023-11-03": connection refused`,
		"signature k3Y/s1gn4tUr3ValueXyZ= mismatch",
	} {
		got := Message(s)
		for _, secret := range []string{testAccountKey, testSig, "k3Y/s1gn4tUr3ValueXyZ=", "c2VjcmV0a2V5dGhhdGlzbm90aW50aGVlbnY=", "QWxsWW91ck5hbWVz"} {
			if strings.Contains(got, secret) {
				t.Errorf("Message(%q) = %q: still holds %s", s, got, secret)
			}
		}
		if !strings.Contains(got, Masked) {
			t.Errorf("Message(%q) = %q: nothing masked", s, got)
		}
	}
	// Ordinary text and short values stay as they are.
	if got := Message("gs://bkt/runs/x/shard-1"); got != "gs://bkt/runs/x/shard-1" {
		t.Errorf("Mask changed a plain URL: %s", got)
	}
}
