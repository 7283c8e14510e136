package cmd

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"fincom/server/certs"
	"fincom/server/fiscal/localauth"
	nfselocal "fincom/server/fiscal/nfsen/local"
	"fincom/server/fiscal/sefaz/local"
)

// newFiscalLocalCmd is `fincom fiscal local-authority`: fincom's own SEFAZ
// on a loopback address, to rehearse transmission end to end (serve
// --fiscal-endpoints and --ca-file at an authority the server has never
// seen) before pointing at SEFAZ's homologation.
func newFiscalLocalCmd(a *app) *cobra.Command {
	var addr, out string
	var nfceWindow time.Duration
	c := &cobra.Command{
		Use:   "local-authority --out DIR [--addr 127.0.0.1:8443]",
		Short: "Run a SEFAZ of fincom's own on loopback (homologation only) and write the endpoints and CA files that point a server at it",
		Long: "Serves NFeStatusServico4, NFeConsultaProtocolo4, NFeAutorizacao4, NFeRetAutorizacao4 and NFeRecepcaoEvento4 as SOAP 1.2 over\n" +
			"mutual TLS, checks every message against its official schema and every note's signature and certificate, and answers with\n" +
			"the manual's codes. It writes DIR/endpoints.json (every state's NF-e and NFC-e homologation addresses pointing at it) and\n" +
			"DIR/ca.pem (its certificate): fincom serve --fiscal-endpoints DIR/endpoints.json --ca-file DIR/ca.pem. It keeps its notes in\n" +
			"memory, accepts homologation notes only (tpAmb 2) and listens on loopback only: nothing it authorizes has legal value.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return fmt.Errorf("--out is required: the folder for endpoints.json and ca.pem")
			}
			mux := http.NewServeMux()
			national := &nfselocal.System{}
			mux.Handle("/SefinNacional/", national)
			mux.Handle("/adn/", national)
			mux.Handle("/", &local.Authority{NFCeCancelWindow: nfceWindow})
			return serveLoopback(cmd.Context(), "local authority", addr, mux, func(base string, cert *x509.Certificate) error {
				if err := writeLocalFiles(out, base, cert); err != nil {
					return err
				}
				fmt.Fprintf(a.errOut, "local authority on %s; fincom serve --fiscal-endpoints %s --ca-file %s\n", base,
					filepath.Join(out, "endpoints.json"), filepath.Join(out, "ca.pem"))
				return nil
			})
		},
	}
	c.Flags().StringVar(&addr, "addr", "127.0.0.1:8443", "loopback address to listen on (port 0: any free one)")
	c.Flags().StringVar(&out, "out", "", "folder for endpoints.json and ca.pem")
	c.Flags().DurationVar(&nfceWindow, "nfce-cancel-window", 30*time.Minute,
		"how long after its emission an NFC-e may be cancelled, as the state sets it (past it: 501)")
	return c
}

// writeLocalFiles writes the endpoints file pointing every NF-e and NFC-e
// authorizer's services, and the national NFS-e system, at base, and the
// CA file.
func writeLocalFiles(dir, base string, cert *x509.Certificate) error {
	b, err := localauth.EndpointsFile(base)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "endpoints.json"), b, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "ca.pem"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}), 0o644)
}

// serveLoopback serves h over TLS (a client certificate required, as the
// parties fincom speaks to require one) on a loopback address only, with
// a certificate of its own, until the command is interrupted; ready is
// told the address and the certificate once it listens (to write the
// files that point fincom at it).
func serveLoopback(ctx context.Context, what, addr string, h http.Handler, ready func(base string, cert *x509.Certificate) error) error {
	host, _, err := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("--addr %s: the %s listens on a loopback address only (e.g. 127.0.0.1:8443)", addr, what)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	srv, leaf, err := certs.LoopbackServer(h)
	if err != nil {
		return err
	}
	if err := ready("https://"+ln.Addr().String(), leaf); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shut)
	}()
	if err := srv.ServeTLS(ln, "", ""); err != http.ErrServerClosed {
		return err
	}
	return nil
}
