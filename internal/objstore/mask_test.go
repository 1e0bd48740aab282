package objstore

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/apeval/apeval/replay"
	"gocloud.dev/gcerrors"
)

// The tests mask through the program's masking pass, as cmd/apeval does.
func init() { SetMask(replay.MaskString) }

// Throwaway values shaped like the real ones.
const (
	testAccountKey = "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6QUJDREVGR0g=="
	testSig        = "k3Y%2Fs1gn4tUr3ValueXyZ%3D"
	testSAS        = "sv=2023-11-03&ss=b&srt=sco&sp=rwdlac&se=2030-01-01T00%3A00%3A00Z&sig=" + testSig
)

func TestMaskScrubsCloudSecrets(t *testing.T) {
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
		got := Mask(s)
		for _, secret := range []string{testAccountKey, testSig, "k3Y/s1gn4tUr3ValueXyZ=", "c2VjcmV0a2V5dGhhdGlzbm90aW50aGVlbnY=", "QWxsWW91ck5hbWVz"} {
			if strings.Contains(got, secret) {
				t.Errorf("Mask(%q) = %q: still holds %s", s, got, secret)
			}
		}
		if !strings.Contains(got, masked) {
			t.Errorf("Mask(%q) = %q: nothing masked", s, got)
		}
	}
	// Ordinary text and short values stay as they are.
	if got := Mask("gs://bkt/runs/x/shard-1"); got != "gs://bkt/runs/x/shard-1" {
		t.Errorf("Mask changed a plain URL: %s", got)
	}
	// maskErr keeps the error's identity for errors.Is and gcerrors.
	base := errors.New("dial " + testAccountKey)
	err := maskErr(base)
	if !errors.Is(err, base) || strings.Contains(err.Error(), testAccountKey) || gcerrors.Code(err) != gcerrors.Unknown {
		t.Errorf("maskErr: %v (Is %v)", err, errors.Is(err, base))
	}
}

// With a SAS token in the environment the Azure SDK puts it in every
// request's URL, and a transport error quotes that URL. The error apeval
// shows must not hold the signature. gocloud reads the Azure variables
// once per process, so the bucket is opened in a child process with its
// own environment. The server is a closed loopback port: the connection
// is refused at once, nothing leaves the machine.
func TestAzureSASNeverInErrors(t *testing.T) {
	if os.Getenv("APEVAL_OBJSTORE_CHILD") == "azure-sas" {
		_, err := Exists(context.Background(), "azblob://ctr/runs/x")
		if err == nil {
			t.Fatal("Exists on a closed port succeeded")
		}
		os.Stdout.WriteString("ERROR: " + err.Error() + "\n")
		// The SDK's own text held the signature: the test is not vacuous.
		var me *maskedError
		if errors.As(err, &me) && strings.Contains(me.err.Error(), testSig) {
			os.Stdout.WriteString("SDK-ERROR-HELD-SIG\n")
		}
		return
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // now refused
	cmd := exec.Command(os.Args[0], "-test.run=^TestAzureSASNeverInErrors$", "-test.count=1")
	cmd.Env = append(os.Environ(), "APEVAL_OBJSTORE_CHILD=azure-sas",
		"AZURE_STORAGE_ACCOUNT=acct", "AZURE_STORAGE_KEY=", "AZURE_STORAGE_CONNECTION_STRING=",
		"AZURE_STORAGE_SAS_TOKEN="+testSAS, "AZURE_STORAGE_DOMAIN="+addr, "AZURE_STORAGE_PROTOCOL=http")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	text := string(out)
	if !strings.Contains(text, "ERROR: ") || !strings.Contains(text, "azblob://ctr/runs/x") || !strings.Contains(text, "SDK-ERROR-HELD-SIG") {
		t.Fatalf("child did not report the error:\n%s", text)
	}
	for _, secret := range []string{testSig, "k3Y/s1gn4tUr3ValueXyZ="} {
		if strings.Contains(text, secret) {
			t.Fatalf("the SAS signature reached the error:\n%s", text)
		}
	}
	t.Logf("%s", text)
}
