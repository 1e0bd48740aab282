//go:build !noobjstore

package objstore

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	t.Parallel()
	l, err := Parse("s3://bucket/runs/x/shard-1?endpoint=http://127.0.0.1:9&use_path_style=true")
	if err != nil {
		t.Fatal(err)
	}
	if l.Bucket != "bucket" || l.Key != "runs/x/shard-1" || l.Query.Get("use_path_style") != "true" {
		t.Fatalf("parsed %+v", l)
	}
	if got := l.With("runs/x/shard-1/run.json"); got != "s3://bucket/runs/x/shard-1/run.json?endpoint=http%3A%2F%2F127.0.0.1%3A9&use_path_style=true" {
		t.Fatalf("With = %s", got)
	}
	for raw, want := range map[string]Loc{
		"gs://bkt/runs/x/shard-1/":                                        {Scheme: "gs", Bucket: "bkt", Key: "runs/x/shard-1"},
		"azblob://ctr/cases/*.jsonl?protocol=http&domain=127.0.0.1:10000": {Scheme: "azblob", Bucket: "ctr", Key: "cases/*.jsonl"},
	} {
		l, err := Parse(raw)
		if err != nil || l.Scheme != want.Scheme || l.Bucket != want.Bucket || l.Key != want.Key {
			t.Errorf("%s: parsed %+v, %v; want %+v", raw, l, err, want)
		}
	}
	if l, _ := Parse("azblob://ctr/p?protocol=http&domain=127.0.0.1:10000"); l.With("p/run.json") != "azblob://ctr/p/run.json?domain=127.0.0.1%3A10000&protocol=http" || l.bucketURL() != "azblob://ctr?domain=127.0.0.1%3A10000&protocol=http" {
		t.Errorf("azblob: With = %s, bucketURL = %s", l.With("p/run.json"), l.bucketURL())
	}
	if _, err := Parse("mem://b/k"); err == nil || !strings.Contains(err.Error(), "not linked") {
		t.Errorf("mem://: err = %v, want 'not linked'", err)
	}
	if _, err := Parse("file://relative/x"); err == nil {
		t.Error("file URL without an absolute path accepted")
	}
	if IsURL("cases.jsonl") || IsURL("C:/x") || !IsURL("S3://b/k") {
		t.Error("IsURL misclassifies")
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
