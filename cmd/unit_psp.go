package cmd

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"fincom/server/certs"
	"fincom/server/settings"
	"fincom/store"
)

// readPFXFile reads a certificate file (.pfx, .p12) and its password:
// from passwordFile, else the environment variable env, never the
// command line.
func readPFXFile(file, passwordFile, env string) ([]byte, string, error) {
	data, err := readInput(file, 1<<20)
	if err != nil {
		return nil, "", err
	}
	password := os.Getenv(env)
	if passwordFile != "" {
		b, err := readInput(passwordFile, 4096)
		if err != nil {
			return nil, "", err
		}
		password = strings.TrimRight(string(b), "\r\n")
	}
	return data, password, nil
}

// newUnitPSPCmd is `fincom unit psp`: a unit's connection to its PSP
// through the Banco Central's API Pix, checked by fetching a token at
// once, its secret and key sealed like the A1 certificate's.
func newUnitPSPCmd(a *app) *cobra.Command {
	var baseURL, tokenURL, clientID, secretFile, pfx, passwordFile, pixKey, caFile, publicURL string
	var remove bool
	c := &cobra.Command{
		Use: "psp DOMAIN UNIT_TOKEN --base-url URL --token-url URL --client-id ID --client-secret-file FILE --pfx FILE " +
			"[--password-file FILE] --pix-key KEY | --remove",
		Short: "Connect a unit to its PSP (the Banco Central's API Pix), or --remove the connection",
		Long: "Connects the unit to the PSP that receives its PIX: OAuth 2.0 client credentials (HTTP Basic to --token-url) over mutual TLS\n" +
			"with the certificate the PSP issued (--pfx; its password from --password-file or FINCOM_PSP_PFX_PASSWORD, never the command\n" +
			"line). The connection is checked at once by fetching a token and asking for the key's webhook. The client's secret and the\n" +
			"certificate's key are kept sealed with --secrets-key-file (the key serve uses). Outbound TLS trusts the system's roots, the\n" +
			"ICP-Brasil roots and --ca-file.",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if remove {
				return a.withDomain(cmd.Context(), args[0], func(db *store.DB) error {
					u, err := db.UnitByToken(cmd.Context(), args[1])
					if err != nil {
						return fmt.Errorf("no unit %q in %s", args[1], args[0])
					}
					if err := settings.DisconnectPSP(cmd.Context(), db, u); errors.Is(err, settings.ErrNoPSPToDrop) {
						return fmt.Errorf("unit %s has no PSP connection", u.Name)
					} else if err != nil {
						return err
					}
					return a.print(map[string]any{"domain": args[0], "unit_token": args[1], "removed": true}, "PSP connection removed")
				})
			}
			for name, v := range map[string]string{"--base-url": baseURL, "--token-url": tokenURL, "--client-id": clientID,
				"--client-secret-file": secretFile, "--pfx": pfx, "--pix-key": pixKey} {
				if v == "" {
					return fmt.Errorf("%s is required (or --remove)", name)
				}
			}
			keys, err := a.keyring(false)
			if err != nil {
				return err
			}
			if keys == nil {
				return fmt.Errorf("the client's secret and the certificate's key are kept sealed: give --secrets-key-file (the key serve uses)")
			}
			secret, err := readInput(secretFile, 4096)
			if err != nil {
				return err
			}
			data, password, err := readPFXFile(pfx, passwordFile, "FINCOM_PSP_PFX_PASSWORD")
			if err != nil {
				return err
			}
			roots, err := certs.TrustPool(caFile)
			if err != nil {
				return err
			}
			return a.withDomain(cmd.Context(), args[0], func(db *store.DB) error {
				u, err := db.UnitByToken(cmd.Context(), args[1])
				if err != nil {
					return fmt.Errorf("no unit %q in %s", args[1], args[0])
				}
				c, err := settings.ConnectPSP(cmd.Context(), db, u, keys, roots, settings.PSPConnection{BaseURL: baseURL, TokenURL: tokenURL,
					ClientID: clientID, Secret: strings.TrimRight(string(secret), "\r\n"), PixKey: pixKey, PFX: data, Password: password, PublicURL: publicURL})
				if err != nil {
					return flagError(err)
				}
				out := map[string]any{"domain": args[0], "unit_token": args[1], "base_url": baseURL, "client_id": clientID, "pix_key": c.PixKey,
					"certificate": c.Certificate, "webhook": c.Webhook}
				text := fmt.Sprintf("unit %s connected to its PSP at %s (PIX key %s)", u.Name, baseURL, c.PixKey)
				if c.Webhook == "" {
					text += "; no webhook registered for the key yet"
				} else {
					text += "; the key's webhook: " + c.Webhook
				}
				return a.print(out, text)
			})
		},
	}
	f := c.Flags()
	f.StringVar(&baseURL, "base-url", "", "the PSP's API Pix address (https://…/api/v2)")
	f.StringVar(&tokenURL, "token-url", "", "the PSP's OAuth 2.0 token address")
	f.StringVar(&clientID, "client-id", "", "the OAuth client the PSP gave the firm")
	f.StringVar(&secretFile, "client-secret-file", "", "a file holding the client's secret")
	f.StringVar(&pfx, "pfx", "", "the certificate the PSP issued for mutual TLS (.pfx or .p12)")
	f.StringVar(&passwordFile, "password-file", "", "a file holding the certificate's password (else env FINCOM_PSP_PFX_PASSWORD)")
	f.StringVar(&pixKey, "pix-key", "", "the unit's PIX key at the PSP")
	f.StringVar(&caFile, "ca-file", os.Getenv("FINCOM_CA_FILE"), "PEM certificates trusted besides the system's and the ICP-Brasil roots")
	f.BoolVar(&remove, "remove", false, "remove the unit's PSP connection")
	f.StringVar(&publicURL, "public-url", "", "where the PSP reaches the server (serve's --public-url): the unit's webhook is registered under it at once")
	return c
}
