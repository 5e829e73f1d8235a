package cli

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"
)

// tlsFlags are the client side of the TLS connections of a scan: the
// crawl's, the MCP client's and the OAuth token endpoint's alike.
type tlsFlags struct {
	caCert    string
	cert, key string
	insecure  bool
}

func (t *tlsFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&t.caCert, "cacert", "", "also trust the CA certificates in this PEM file (a staging server's private CA); SSL_CERT_FILE replaces the system's instead")
	fs.StringVar(&t.cert, "cert", "", "client certificate (PEM) presented to servers that ask for one; with --key")
	fs.StringVar(&t.key, "key", "", "private key (PEM) of the --cert client certificate")
	fs.BoolVar(&t.insecure, "insecure", false, "do not verify the servers' certificates (every report warns; credentials are still sent)")
}

// config is the TLS configuration the flags give, or nil when they give
// none: Go's default, which honours SSL_CERT_FILE and SSL_CERT_DIR. A file
// that cannot be read or holds no certificate is a usage error.
func (t *tlsFlags) config() (*tls.Config, error) {
	if t.caCert == "" && t.cert == "" && t.key == "" && !t.insecure {
		return nil, nil
	}
	// InsecureSkipVerify is what --insecure asks for; every report says so.
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: t.insecure}
	if t.caCert != "" {
		pem, err := os.ReadFile(t.caCert)
		if err != nil {
			return nil, usageError("--cacert: %v", err)
		}
		// The system's roots stay trusted: a private CA is added to them.
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, usageError("--cacert %s: no PEM certificate in the file", t.caCert)
		}
		cfg.RootCAs = pool
	}
	if (t.cert == "") != (t.key == "") {
		return nil, usageError("--cert and --key go together: give both the client certificate and its key")
	}
	if t.cert != "" {
		pair, err := tls.LoadX509KeyPair(t.cert, t.key)
		if err != nil {
			return nil, usageError("--cert %s --key %s: %v", t.cert, t.key, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}

// withTLSHint adds to a failed connection's error the option that fixes
// it. The error reaches here as text (a recorded exchange keeps only its
// message), so it is told by Go's own wording.
func withTLSHint(err error) error {
	if err == nil {
		return nil
	}
	if hint := tlsHint(err.Error()); hint != "" {
		return fmt.Errorf("%w\n  hint: %s", err, hint)
	}
	return err
}

func tlsHint(msg string) string {
	switch {
	case strings.Contains(msg, "tls: certificate required"), strings.Contains(msg, "tls: bad certificate"):
		return "the server asks for a client certificate: give it with --cert FILE --key FILE (or tls: cert and key in the config file, for all targets or one)"
	case strings.Contains(msg, "x509: certificate signed by unknown authority"),
		strings.Contains(msg, "certificate is not trusted"):
		return "the server's certificate is signed by a CA this machine does not trust: give the CA's certificate with --cacert FILE (or tls: cacert in the config file, for all targets or one; or SSL_CERT_FILE), or skip verification with --insecure"
	case strings.Contains(msg, "x509: "):
		return "the server's certificate did not verify: give its CA with --cacert FILE (or tls: cacert in the config file), or skip verification with --insecure"
	}
	return ""
}
