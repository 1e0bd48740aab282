//go:build !noobjstore

package objstore

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"sync"

	"gocloud.dev/blob"
	"gocloud.dev/blob/gcsblob"
	"gocloud.dev/gcp"
	"golang.org/x/oauth2/google"
)

// gs:// buckets are opened here rather than through gocloud's default URL
// opener, which, when Application Default Credentials are missing, prints a
// warning to standard output (where apeval's reports go) and carries on
// with empty credentials. Here a missing credential is an error that says
// where it was looked for. Everything else is gcsblob's URLOpener: the same
// query parameters (anonymous, access_id, private_key_path,
// universe_domain, grpc, zonal) and STORAGE_EMULATOR_HOST.
//
// No credential is looked up when the client will not use one:
// STORAGE_EMULATOR_HOST=host:port (an emulator such as fake-gcs-server;
// gcsblob then talks plain HTTP to http://host:port/storage/v1/ without
// authentication) or ?anonymous=true / ?access_id=- (a public bucket).

// gcsOpeners caches one URL opener per universe domain: Application Default
// Credentials are found once per process and their token source (with its
// refreshed tokens) is shared by every bucket opened after.
var gcsOpeners struct {
	sync.Mutex
	m map[string]*gcsblob.URLOpener
}

// gcsAnonymous reports whether the bucket's options ask for no credential.
func gcsAnonymous(q url.Values) bool {
	if v, err := strconv.ParseBool(q.Get("anonymous")); err == nil && v {
		return true
	}
	return q.Get("access_id") == "-"
}

// openGCS opens gs://bucket with the options q.
func openGCS(ctx context.Context, bucket string, q url.Values) (*blob.Bucket, error) {
	u := &url.URL{Scheme: gcsblob.Scheme, Host: bucket, RawQuery: q.Encode()}
	if os.Getenv("STORAGE_EMULATOR_HOST") != "" || gcsAnonymous(q) {
		o := &gcsblob.URLOpener{Client: gcp.NewAnonymousHTTPClient(gcp.DefaultTransport())}
		return o.OpenBucketURL(ctx, u)
	}
	o, err := gcsOpener(ctx, q.Get("universe_domain"))
	if err != nil {
		return nil, err
	}
	return o.OpenBucketURL(ctx, u)
}

// gcsOpener returns the cached opener for a universe domain ("" for the
// default), finding Application Default Credentials on first use.
func gcsOpener(ctx context.Context, universe string) (*gcsblob.URLOpener, error) {
	gcsOpeners.Lock()
	defer gcsOpeners.Unlock()
	if o := gcsOpeners.m[universe]; o != nil {
		return o, nil
	}
	var creds *google.Credentials
	var err error
	if universe != "" {
		creds, err = gcp.DefaultCredentialsWithParams(ctx, google.CredentialsParams{UniverseDomain: universe})
	} else {
		creds, err = gcp.DefaultCredentials(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("no Google Cloud credentials (Application Default Credentials: GOOGLE_APPLICATION_CREDENTIALS, "+
			"`gcloud auth application-default login`, or the metadata server on Google Cloud; ?anonymous=true for a public bucket): %w", err)
	}
	client, err := gcp.NewHTTPClient(gcp.DefaultTransport(), creds.TokenSource)
	if err != nil {
		return nil, err
	}
	o := &gcsblob.URLOpener{Client: client, TokenSource: gcp.CredentialsTokenSource(creds)}
	if gcsOpeners.m == nil {
		gcsOpeners.m = map[string]*gcsblob.URLOpener{}
	}
	gcsOpeners.m[universe] = o
	return o, nil
}
