package cmd

import (
	"crypto/rand"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"net/http"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"fincom/server/psp/local"
)

// newUnitPSPLocalCmd is `fincom unit psp-local`: a PSP of fincom's own on
// a loopback address, to rehearse `fincom unit psp` before pointing a
// unit at its PSP.
func newUnitPSPLocalCmd(a *app) *cobra.Command {
	var addr, out string
	c := &cobra.Command{
		Use:   "psp-local --out DIR [--addr 127.0.0.1:8444]",
		Short: "Run a PSP of fincom's own on loopback (the API Pix's OAuth and webhooks) and write the files that connect a unit to it",
		Long: "Serves the Banco Central's API Pix as a PSP does (OAuth 2.0 client credentials over mutual TLS, /webhook) on a loopback\n" +
			"address and writes DIR/ca.pem (its certificate) and DIR/client-secret (the secret of its one client, local-client), for\n" +
			"fincom unit psp DOMAIN UNIT_TOKEN --base-url https://ADDR/api/v2 --token-url https://ADDR/oauth/token --client-id local-client\n" +
			"--client-secret-file DIR/client-secret --ca-file DIR/ca.pem --pfx FILE --pix-key KEY. It keeps everything in memory and\n" +
			"confirms no money.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return fmt.Errorf("--out is required: the folder for ca.pem and client-secret")
			}
			b := make([]byte, 16)
			if _, err := rand.Read(b); err != nil {
				return err
			}
			p := &local.PSP{ClientID: "local-client", Secret: hex.EncodeToString(b)}
			mux := http.NewServeMux()
			mux.Handle("/oauth/token", p)
			mux.Handle("/api/v2/", http.StripPrefix("/api/v2", p))
			return serveLoopback(cmd.Context(), "local PSP", addr, mux, func(base string, cert *x509.Certificate) error {
				if err := os.MkdirAll(out, 0o755); err != nil {
					return err
				}
				if err := os.WriteFile(filepath.Join(out, "client-secret"), []byte(p.Secret+"\n"), 0o600); err != nil {
					return err
				}
				if err := os.WriteFile(filepath.Join(out, "ca.pem"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}), 0o644); err != nil {
					return err
				}
				fmt.Fprintf(a.errOut, "local PSP on %s: --base-url %s/api/v2 --token-url %s/oauth/token --client-id local-client --client-secret-file %s --ca-file %s\n",
					base, base, base, filepath.Join(out, "client-secret"), filepath.Join(out, "ca.pem"))
				return nil
			})
		},
	}
	c.Flags().StringVar(&addr, "addr", "127.0.0.1:8444", "loopback address to listen on (port 0: any free one)")
	c.Flags().StringVar(&out, "out", "", "folder for ca.pem and client-secret")
	return c
}
