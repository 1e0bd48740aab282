package objstore

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"

	"gocloud.dev/gcerrors"
)

// Throwaway values shaped like the real ones.
const (
	testAccountKey = "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6QUJDREVGR0g=="
	testSig        = "k3Y%2Fs1gn4tUr3ValueXyZ%3D"
	testSAS        = "sv=2023-11-03&ss=b&srt=sco&sp=rwdlac&se=2030-01-01T00%3A00%3A00Z&sig=" + testSig
)

// maskErr keeps the error's identity for errors.Is and gcerrors, and masks
// its text.
func TestMaskErr(t *testing.T) {
	t.Setenv("AZURE_STORAGE_KEY", testAccountKey)
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
	t.Parallel()
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
