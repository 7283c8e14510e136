package cmd

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"fincom/server/brdoc"
	"fincom/server/fiscal/sefaz"
	"fincom/server/inbox"
	"fincom/store"
)

func newNFeCmd(a *app) *cobra.Command {
	c := &cobra.Command{Use: "nfe", Short: "The NF-e inbox of a unit (the documents issued to its CNPJ)"}
	c.AddCommand(&cobra.Command{
		Use:   "import DOMAIN UNIT_TOKEN FILE...",
		Short: "Import NF-e XML files into a unit's inbox (standing in for the tax authority's distribution)",
		Args:  cobra.MinimumNArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withDomain(cmd.Context(), args[0], func(db *store.DB) error {
				units, err := db.UnitsByTokens(cmd.Context(), []string{args[1]})
				if err != nil {
					return fmt.Errorf("unit %s: %w", args[1], err)
				}
				var imported []string
				var b strings.Builder
				for _, path := range args[2:] {
					data, err := readInput(path, maxInputFile)
					if err != nil {
						return err
					}
					n, err := inbox.ReadNFe(data, units[0].CNPJ, true)
					if err != nil {
						return fmt.Errorf("%s: %w", path, err)
					}
					if _, err := db.ImportNFe(cmd.Context(), units[0].ID, n); err != nil {
						if errors.Is(err, store.ErrDuplicate) {
							fmt.Fprintf(&b, "%s: already in the inbox\n", path)
							continue
						}
						return fmt.Errorf("%s: %w", path, err)
					}
					imported = append(imported, n.AccessKey)
					fmt.Fprintf(&b, "%s: imported %s\n", path, n.AccessKey)
				}
				if imported == nil {
					imported = []string{}
				}
				return a.print(map[string]any{"domain": args[0], "imported": imported}, strings.TrimRight(b.String(), "\n"))
			})
		},
	})
	c.AddCommand(newNFeFetchCmd(a))
	return c
}

// maxFetchRounds bounds the lots one fetch asks for: the national
// environment answers up to 50 documents a lot, and asking past what is
// there earns cStat 656 (consumo indevido) and an hour's wait.
const maxFetchRounds = 20

// newNFeFetchCmd is `fincom nfe fetch`: the unit's documents from the
// national environment's distribution (NFeDistribuicaoDFe), the notes into
// its inbox as `nfe import` takes them.
func newNFeFetchCmd(a *app) *cobra.Command {
	var o fiscalOptions
	c := &cobra.Command{
		Use:   "fetch DOMAIN UNIT_TOKEN",
		Short: "Fetch the unit's documents from the national environment (NFeDistribuicaoDFe) after the last NSU read: authorized notes enter the inbox",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withFiscalUnit(cmd, args[0], args[1], o, func(f fiscalUnit) error {
				nsu, err := f.db.DistributionNSU(cmd.Context(), f.unit.ID)
				if err != nil {
					return err
				}
				imported, summaries, other := []string{}, 0, 0
				var last sefaz.Distribution
				for round := 0; round < maxFetchRounds; round++ {
					d, err := f.client.Distribute(cmd.Context(), f.cert, brdoc.Digits(f.unit.CNPJ), f.stateCode, strconv.FormatInt(nsu, 10), o.env)
					if err != nil {
						return err
					}
					last = d
					if d.Code != 138 {
						break // 137 nothing new, 656 asked too often: wait before asking again
					}
					for _, doc := range d.Documents {
						switch {
						case strings.HasPrefix(doc.Schema, "procNFe"):
							n, err := inbox.ReadNFe(doc.XML, f.unit.CNPJ, true)
							if err != nil {
								return fmt.Errorf("NSU %s: %w", doc.NSU, err)
							}
							if _, err := f.db.ImportNFe(cmd.Context(), f.unit.ID, n); err != nil && !errors.Is(err, store.ErrDuplicate) {
								return fmt.Errorf("NSU %s: %w", doc.NSU, err)
							}
							imported = append(imported, n.AccessKey)
						case strings.HasPrefix(doc.Schema, "resNFe"):
							summaries++
						default:
							other++
						}
					}
					got, err := strconv.ParseInt(d.LastNSU, 10, 64)
					if err != nil || got < nsu {
						return fmt.Errorf("the national environment answered NSU %q after %d", d.LastNSU, nsu)
					}
					nsu = got
					if err := f.db.SetDistributionNSU(cmd.Context(), f.unit.ID, nsu); err != nil {
						return err
					}
					if d.LastNSU >= d.MaxNSU {
						break
					}
				}
				text := fmt.Sprintf("%d %s; NSU %d; %d notes into the inbox %v, %d summaries (the whole note needs the recipient's ciência), %d events",
					last.Code, last.Reason, nsu, len(imported), imported, summaries, other)
				return a.print(map[string]any{"cStat": last.Code, "xMotivo": last.Reason, "nsu": nsu, "imported": imported,
					"summaries": summaries, "events": other}, text)
			})
		},
	}
	o.flags(c)
	return c
}
