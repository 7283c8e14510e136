package store

import (
	"bytes"
	"context"
	"crypto/sha1"
	"database/sql"
	_ "embed"
	"encoding/csv"
	"fmt"
	"sync"
	"time"
)

// banksCSV is the catalogue of Brazilian banks and payment institutions
// (COMPE code, ISPB, name) from the public @brazilian-utils data, with the
// group_bank column fincom adds (see README, "Banks").
//
//go:embed seed/banks.csv
var banksCSV []byte

// stableID derives a UUID (version 5 layout, SHA-1) from a fixed name, so
// that catalogue records (banks, bank types, payment methods) have the same
// token in every domain and every release.
func stableID(kind, key string) string {
	h := sha1.Sum([]byte("fincom:" + kind + ":" + key))
	h[6] = (h[6] & 0x0f) | 0x50
	h[8] = (h[8] & 0x3f) | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

// seedDigest identifies this build's reference data.
var seedDigest = sync.OnceValue(func() string {
	h := sha1.New()
	h.Write(banksCSV)
	fmt.Fprint(h, bankTypes, paymentMethods, categoryGroups)
	return fmt.Sprintf("%x", h.Sum(nil))
})

type seedRow struct{ key, name string }

// bankTypes are the kinds of account a unit keeps money in.
var bankTypes = []seedRow{
	{"CHECKING", "Conta corrente"},
	{"SAVINGS", "Conta poupança"},
	{"PAYMENT", "Conta de pagamento"},
	{"INVESTMENT", "Conta investimento"},
	{"CASH", "Caixa interno"},
	{"CREDIT_CARD", "Cartão de crédito"},
}

// paymentMethods are the ways a charge can be paid; payment_key is the
// stable value integrators switch on.
var paymentMethods = []seedRow{
	{"BOLETO", "Boleto bancário"},
	{"PIX", "PIX"},
	{"PIX_AUTOMATICO", "PIX Automático"},
	{"CREDIT_CARD", "Cartão de crédito"},
	{"DEBIT_CARD", "Cartão de débito"},
	{"TRANSFER", "Transferência bancária (TED)"},
	{"CASH", "Dinheiro"},
}

type groupRow struct {
	code              int
	moduleType, name  string
	description       string
	defaultCategories []string
}

// categoryGroups is a small firm's chart of accounts by the lines of the
// DRE (demonstração do resultado do exercício), plus the cash lines that
// are not results (investments, loans, owners' withdrawals). The codes are
// the integer `code` of /list_group_categories.
var categoryGroups = []groupRow{
	{101, "in", "Receita de vendas de produtos", "Receita operacional bruta: vendas de mercadorias e produtos", []string{"Venda de produtos"}},
	{102, "in", "Receita de prestação de serviços", "Receita operacional bruta: serviços prestados", []string{"Prestação de serviços"}},
	{103, "in", "Receitas financeiras", "Rendimentos de aplicações, juros e descontos obtidos", []string{"Rendimentos de aplicações", "Juros recebidos", "Multas recebidas", "Descontos obtidos"}},
	{104, "in", "Outras receitas operacionais", "Receitas da atividade que não são vendas nem serviços", []string{"Outras receitas"}},
	{105, "in", "Receitas não operacionais", "Venda de bens do ativo imobilizado e ganhos eventuais", nil},
	{106, "in", "Aportes e empréstimos recebidos", "Entradas que não são resultado: capital dos sócios, empréstimos e financiamentos", nil},
	{201, "out", "Deduções da receita", "Impostos sobre vendas (Simples Nacional, ICMS, ISS, PIS, COFINS), devoluções e abatimentos", []string{"Simples Nacional", "ISS", "Descontos concedidos"}},
	{202, "out", "Custo das mercadorias vendidas (CMV)", "Compras de mercadorias e insumos para revenda ou produção", []string{"Compra de mercadorias"}},
	{203, "out", "Custo dos serviços prestados (CSP)", "Gastos diretamente ligados aos serviços prestados", []string{"Serviços de terceiros"}},
	{204, "out", "Despesas com pessoal", "Salários, pró-labore, encargos e benefícios", []string{"Salários", "Pró-labore", "FGTS", "INSS"}},
	{205, "out", "Despesas administrativas", "Aluguel, contas de consumo, contabilidade, escritório e sistemas", []string{"Aluguel", "Energia elétrica", "Água", "Internet e telefone", "Contabilidade", "Software e assinaturas"}},
	{206, "out", "Despesas comerciais", "Marketing, publicidade e comissões sobre vendas", []string{"Marketing e publicidade", "Comissões sobre vendas"}},
	{207, "out", "Despesas financeiras", "Tarifas bancárias, juros pagos e taxas de cartão e boleto", []string{"Tarifas bancárias", "Juros pagos", "Multas pagas", "Taxas de cartão e boleto"}},
	{208, "out", "Outras despesas operacionais", "Despesas da atividade sem outra linha", nil},
	{209, "out", "IRPJ e CSLL", "Impostos sobre o lucro (lucro presumido ou real)", nil},
	{210, "out", "Investimentos", "Compra de bens do ativo imobilizado", nil},
	{211, "out", "Retiradas e distribuição de lucros", "Saídas para os sócios que não são despesa", []string{"Retirada dos sócios"}},
	{212, "out", "Pagamento de empréstimos", "Amortização de empréstimos e financiamentos", nil},
}

// seed writes the reference catalogues into a domain file. It is safe to run
// on every start: rows are matched by their natural key and updated.
func seed(ctx context.Context, tx *sql.Tx, now time.Time) error {
	rows, err := csv.NewReader(bytes.NewReader(banksCSV)).ReadAll()
	if err != nil {
		return fmt.Errorf("read banks: %w", err)
	}
	for _, r := range rows[1:] {
		if _, err := tx.ExecContext(ctx, `
			INSERT INTO banks (token, code, ispb, name, group_bank, sort_key) VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (code) DO UPDATE SET ispb = excluded.ispb, name = excluded.name, group_bank = excluded.group_bank, sort_key = excluded.sort_key`,
			stableID("bank", r[0]), r[0], r[1], r[2], r[3], sortKey(r[2])); err != nil {
			return fmt.Errorf("seed bank %s: %w", r[0], err)
		}
	}
	for _, r := range bankTypes {
		if _, err := tx.ExecContext(ctx, `
			INSERT INTO bank_types (token, key, name) VALUES (?, ?, ?)
			ON CONFLICT (key) DO UPDATE SET name = excluded.name`,
			stableID("bank_type", r.key), r.key, r.name); err != nil {
			return fmt.Errorf("seed bank type: %w", err)
		}
	}
	for _, r := range paymentMethods {
		if _, err := tx.ExecContext(ctx, `
			INSERT INTO payment_methods (token, payment_key, name) VALUES (?, ?, ?)
			ON CONFLICT (payment_key) DO UPDATE SET name = excluded.name`,
			stableID("payment_method", r.key), r.key, r.name); err != nil {
			return fmt.Errorf("seed payment method: %w", err)
		}
	}
	for _, g := range categoryGroups {
		if _, err := tx.ExecContext(ctx, `
			INSERT INTO category_groups (code, module_type, name, description, sort_key) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (code) DO UPDATE SET module_type = excluded.module_type, name = excluded.name, description = excluded.description,
				sort_key = excluded.sort_key`,
			g.code, g.moduleType, g.name, g.description, sortKey(g.name)); err != nil {
			return fmt.Errorf("seed category group: %w", err)
		}
	}
	return nil
}

// seedUnitCategories gives a new unit the default categories of each group,
// so that it can record entries at once.
func seedUnitCategories(ctx context.Context, tx *sql.Tx, unitID int64, now time.Time, newID func() string) error {
	ts := timestamp(now)
	for _, g := range categoryGroups {
		for _, name := range g.defaultCategories {
			if _, err := tx.ExecContext(ctx, `
				INSERT INTO categories (token, unit_id, module_type, name, note, group_code, created_at, updated_at, sort_key)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				newID(), unitID, g.moduleType, name, g.name, g.code, ts, ts, sortKey(name)); err != nil {
				return fmt.Errorf("seed category %q: %w", name, err)
			}
		}
	}
	return nil
}
