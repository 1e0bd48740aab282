//go:build e2e

package objstore

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"cloud.google.com/go/storage"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/apeval/apeval/internal/mask"
	"gocloud.dev/blob"
)

// The tests below are steps of .ci/e2e-cloud.sh, run against a real GCS
// emulator (fake-gcs-server) or Azure emulator (Azurite); each reads its
// inputs from the environment and fails when they are missing.

func e2eEnv(t *testing.T, names ...string) []string {
	t.Helper()
	var out []string
	for _, n := range names {
		v := os.Getenv(n)
		if v == "" {
			t.Fatalf("run by .ci/e2e-cloud.sh: %s is not set", n)
		}
		out = append(out, v)
	}
	return out
}

func e2eBucket(t *testing.T, raw string) (Loc, *blob.Bucket) {
	t.Helper()
	l, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	b, err := l.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return l, b
}

// TestE2ECreateBucket creates the bucket (GCS) or container (Azure) of
// APEVAL_E2E_URL through the SDK client gocloud opened.
func TestE2ECreateBucket(t *testing.T) {
	t.Parallel()
	raw := e2eEnv(t, "APEVAL_E2E_URL")[0]
	l, b := e2eBucket(t, raw)
	ctx := context.Background()
	var gc *storage.Client
	var ac *container.Client
	switch {
	case b.As(&gc):
		if err := gc.Bucket(l.Bucket).Create(ctx, "apeval-e2e", nil); err != nil {
			t.Fatal(err)
		}
	case b.As(&ac):
		if _, err := ac.Create(ctx, nil); err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatalf("%s: not a GCS or Azure bucket", mask.Message(raw))
	}
}

// TestE2EBucket runs exerciseBucket against the server.
func TestE2EBucket(t *testing.T) {
	exerciseBucket(t, e2eEnv(t, "APEVAL_E2E_URL")[0])
}

// TestE2EPut uploads the local file APEVAL_E2E_PUT_FILE to the object
// APEVAL_E2E_URL (a dataset for the sharded runs).
func TestE2EPut(t *testing.T) {
	t.Parallel()
	v := e2eEnv(t, "APEVAL_E2E_URL", "APEVAL_E2E_PUT_FILE")
	l, b := e2eBucket(t, v[0])
	f, err := os.Open(v[1])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := WriteObject(context.Background(), b, l.Key, f); err != nil {
		t.Fatal(err)
	}
}

// TestE2EList writes to APEVAL_E2E_LIST_OUT the keys below the prefix
// APEVAL_E2E_URL, one a line, as gocloud lists them; on Azure also, as
// "uncommitted <key>", blobs that have staged blocks but were never
// committed (not objects: no read, no listing without asking shows them).
func TestE2EList(t *testing.T) {
	t.Parallel()
	v := e2eEnv(t, "APEVAL_E2E_URL", "APEVAL_E2E_LIST_OUT")
	l, b := e2eBucket(t, v[0])
	ctx := context.Background()
	prefix := l.Key + "/"
	var lines []string
	it := b.List(&blob.ListOptions{Prefix: prefix})
	for {
		o, err := it.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, o.Key)
	}
	committed := map[string]bool{}
	for _, k := range lines {
		committed[k] = true
	}
	var ac *container.Client
	if b.As(&ac) {
		pager := ac.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{
			Prefix:  to.Ptr(prefix),
			Include: container.ListBlobsInclude{UncommittedBlobs: true},
		})
		for pager.More() {
			page, err := pager.NextPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, item := range page.Segment.BlobItems {
				if !committed[*item.Name] {
					lines = append(lines, "uncommitted "+*item.Name)
				}
			}
		}
	}
	out := strings.Join(lines, "\n")
	if out != "" {
		out += "\n"
	}
	if err := os.WriteFile(v[1], []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "listed %d keys below %s\n", len(lines), mask.Message(v[0]))
}

// TestE2EKillMidUpload is killMidUpload against the server process
// APEVAL_E2E_PID.
func TestE2EKillMidUpload(t *testing.T) {
	t.Parallel()
	v := e2eEnv(t, "APEVAL_E2E_URL", "APEVAL_E2E_PID", "APEVAL_E2E_KILL_KEY")
	killMidUpload(t, v[0], v[1], v[2])
}
