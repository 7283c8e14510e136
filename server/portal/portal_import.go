package portal

import (
	"cmp"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"

	"fincom/render"
	"fincom/server/bank"
	"fincom/server/billing"
	"fincom/server/fiscal/sefaz"
	"fincom/server/inbox"
	"fincom/server/invoicing"
	"fincom/server/statement"
	"fincom/store"
)

// maxPortalUpload bounds a file sent through the portal (a statement, a
// return file): its whole request.
const maxPortalUpload = 8 << 20

// importPage: GET /portal/import, the files the office brings in: a bank
// statement (OFX) into one of the unit's accounts, a CNAB 240 return.
func (s *Portal) importPage(p *portalRequest, status int, result *render.PortalImportResult, errText string) {
	accounts, err := p.db.BankAccounts(p.ctx, p.unit.ID, true)
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	body := render.PortalImport{Result: result}
	for _, a := range accounts {
		body.Accounts = append(body.Accounts, render.PortalOption{Value: a.Token, Label: accountName(a)})
	}
	p.page(s, status, "import", "Importar arquivos", "import", body, "", errText)
}

// accountName is how the portal names a bank account.
func accountName(a store.BankAccount) string {
	if a.NickName.String != "" {
		return a.NickName.String
	}
	return a.BankName + " " + a.Agency.String + "/" + a.CurrentAccount.String
}

// uploaded is the one file of a portal upload, or why there is none.
func uploaded(p *portalRequest) ([]byte, string, string) {
	f, h, err := p.r.FormFile("file")
	if err != nil {
		return nil, "", "Escolha o arquivo a enviar."
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxPortalUpload+1))
	if err != nil || len(b) > maxPortalUpload {
		return nil, "", "O arquivo é grande demais (até 8 MiB)."
	}
	return b, h.Filename, ""
}

// portalImportStatement: POST /portal/import/statement imports an OFX
// statement into an account, as /import_ofx does.
func (s *Portal) portalImportStatement(p *portalRequest) {
	data, _, why := uploaded(p)
	if why != "" {
		s.importPage(p, http.StatusBadRequest, nil, why)
		return
	}
	rep, err := s.Billing.ImportStatement(p.ctx, p.db, p.unit.ID, p.r.PostFormValue("account"), data)
	var other *statement.OtherAccountError
	switch {
	case errors.Is(err, statement.ErrNotOFX):
		s.importPage(p, http.StatusBadRequest, nil, "O arquivo não é um extrato OFX: nada foi importado.")
		return
	case errors.As(err, &other):
		var held []string
		for _, a := range other.Accounts {
			held = append(held, "banco "+cmp.Or(a.Bank, "não informado")+", conta "+cmp.Or(a.Account, "não informada"))
		}
		s.importPage(p, http.StatusUnprocessableEntity, nil, "O arquivo não traz o extrato desta conta (traz o de "+strings.Join(held, "; ")+
			"): nada foi importado. Escolha a conta do arquivo.")
		return
	case errors.Is(err, statement.ErrCurrency):
		s.importPage(p, http.StatusUnprocessableEntity, nil, "O extrato não está em reais: nada foi importado.")
		return
	case errors.Is(err, store.ErrInvalidReference), errors.Is(err, store.ErrNotFound):
		s.importPage(p, http.StatusBadRequest, nil, "Escolha uma conta bancária ativa da unidade.")
		return
	case err != nil:
		s.portalFailed(p, err)
		return
	}
	res := &render.PortalImportResult{Title: "Extrato importado", Summary: []render.Labelled{
		{Label: "Linhas novas", Value: strconv.Itoa(rep.Imported)}, {Label: "Conciliadas na hora", Value: strconv.Itoa(rep.Matched)},
		{Label: "À espera em Conciliação", Value: strconv.Itoa(rep.Open)}, {Label: "Já importadas antes (sem mudança)", Value: strconv.Itoa(rep.Repeated)}}}
	for _, l := range rep.Lines {
		outcome := map[string]string{"matched": "Conciliada", "open": "Em Conciliação", "dismissed": "Descartada"}[l.Status]
		res.Rows = append(res.Rows, render.PortalImportRow{What: render.DateBR(l.Date) + " · " + render.BRL(l.Amount.StringFixed(2)),
			Outcome: outcome, Detail: l.Memo.String})
	}
	s.importPage(p, http.StatusOK, res, "")
}

// returnOutcomes say in Portuguese what a return file's line did.
var returnOutcomes = map[string]string{"registered": "Boleto registrado", "rejected": "Registro recusado pelo banco", "paid": "Pagamento aplicado",
	"written_off": "Baixa", "already_paid": "Já estava pago", "unknown_charge": "Nenhuma cobrança com esse nosso número",
	"not_settled": "Pagamento sem data ou com data futura: não aplicado", "ignored": "Sem efeito"}

// portalImportReturn: POST /portal/import/return applies a CNAB 240
// return file of the bank it names, as /import_return does.
func (s *Portal) portalImportReturn(p *portalRequest) {
	data, name, why := uploaded(p)
	if why != "" {
		s.importPage(p, http.StatusBadRequest, nil, why)
		return
	}
	b, ok := bank.ByCode(string(data[:min(3, len(data))]))
	if !ok {
		s.importPage(p, http.StatusBadRequest, nil, "O arquivo não é um retorno CNAB 240 de um banco que o fincom conhece: nada foi aplicado.")
		return
	}
	rep, err := s.Billing.ImportReturn(p.ctx, p.db, p.unit, "", name, data)
	var pe *bank.ParseError
	var fe *billing.ForeignReturnError
	switch {
	case errors.As(err, &pe):
		s.importPage(p, http.StatusBadRequest, nil, "O arquivo não é um retorno CNAB 240 deste banco: nada foi aplicado.")
		return
	case errors.As(err, &fe):
		s.importPage(p, http.StatusUnprocessableEntity, nil, "Este retorno é de outro beneficiário (o cabeçalho não traz o CNPJ, a agência, a conta ou o convênio da unidade): nada foi aplicado.")
		return
	case errors.Is(err, store.ErrNoAgreement):
		s.importPage(p, http.StatusUnprocessableEntity, nil, "A unidade não tem convênio de cobrança com o banco "+b.Name+": nada foi aplicado.")
		return
	case err != nil:
		s.portalFailed(p, err)
		return
	}
	res := &render.PortalImportResult{Title: "Retorno do " + b.Name + " aplicado"}
	if rep.Duplicate {
		res.Title = "Este retorno já tinha sido aplicado: nada mudou"
	}
	counts := map[string]int{}
	for _, l := range rep.Lines {
		counts[l.Outcome]++
		res.Rows = append(res.Rows, render.PortalImportRow{What: strconv.Itoa(l.Line) + " · nosso número " + strconv.FormatInt(l.OurNumber, 10),
			Outcome: returnOutcomes[l.Outcome], Detail: l.Detail})
	}
	for _, o := range []string{"paid", "registered", "rejected", "written_off", "unknown_charge", "not_settled"} {
		if counts[o] > 0 {
			res.Summary = append(res.Summary, render.Labelled{Label: returnOutcomes[o], Value: strconv.Itoa(counts[o])})
		}
	}
	s.importPage(p, http.StatusOK, res, "")
}

// maxNoteFiles bounds the NF-e files of one upload.
const maxNoteFiles = 200

// noteRefusals say in Portuguese why a file did not enter the inbox.
var noteRefusals = []struct {
	err   error
	words string
}{
	{store.ErrDuplicate, "Já estava na caixa: nada mudou"},
	{inbox.ErrForeign, "Recusada: a nota não foi emitida para o CNPJ desta unidade"},
	{inbox.ErrNotAuthorized, "Recusada: falta a autorização da SEFAZ (importe o XML completo, o nfeProc, com o protocolo)"},
	{inbox.ErrSignature, "Recusada: a assinatura não confere (o arquivo mudou depois de assinado, ou não é do emitente)"},
	{invoicing.ErrUnreadableNote, "Recusada: o arquivo não é um XML de NF-e"},
	{invoicing.ErrNotConfirmed, "Recusada: a SEFAZ não confirma esta nota como autorizada"},
	{invoicing.ErrConfirmDown, "Não importada: a SEFAZ não respondeu à consulta da nota; tente de novo"},
}

// portalImportNotes: POST /portal/import/nfe puts received NF-e XMLs (one
// or many) in the unit's inbox, each as /import_nfe does, and lists what
// each file did.
func (s *Portal) portalImportNotes(p *portalRequest) {
	files := p.r.MultipartForm
	if files == nil || len(files.File["file"]) == 0 {
		s.importPage(p, http.StatusBadRequest, nil, "Escolha os arquivos a enviar.")
		return
	}
	heads := files.File["file"]
	if len(heads) > maxNoteFiles {
		s.importPage(p, http.StatusBadRequest, nil, "Envie até "+strconv.Itoa(maxNoteFiles)+" notas de cada vez.")
		return
	}
	res := &render.PortalImportResult{Title: "NF-e recebidas", Files: true}
	imported := 0
	for _, h := range heads {
		row := render.PortalImportRow{What: h.Filename}
		data, err := readPart(h)
		var token string
		var n store.NewInboxNFe
		if err == nil {
			token, n, err = s.Invoices.ImportNote(p.ctx, p.db, p.unit, data, s.TestMode)
		}
		if n.SupplierName != "" {
			row.Detail = n.SupplierName + " · " + render.BRL(n.Total.StringFixed(2)) + " · chave " + n.AccessKey
		}
		var nc *invoicing.NotConfirmedError
		switch {
		case err == nil && token != "":
			imported++
			row.Outcome = "Importada"
		case errors.As(err, &nc):
			row.Outcome = "Recusada: a SEFAZ não confirma esta nota como autorizada"
			row.Detail += " (cStat " + strconv.Itoa(nc.Code) + ": " + sefaz.Shown(nc.Reason) + ")"
		default:
			for _, r := range noteRefusals {
				if errors.Is(err, r.err) {
					row.Outcome = r.words
					break
				}
			}
			if row.Outcome == "" {
				s.Log.Error("portal: import an NF-e", "err", err)
				row.Outcome = "Não importada: algo deu errado; tente de novo"
			}
		}
		res.Rows = append(res.Rows, row)
	}
	res.Summary = []render.Labelled{{Label: "Importadas", Value: strconv.Itoa(imported)}, {Label: "Não importadas", Value: strconv.Itoa(len(heads) - imported)}}
	s.importPage(p, http.StatusOK, res, "")
}

// readPart reads one file of a multipart upload.
func readPart(h *multipart.FileHeader) ([]byte, error) {
	f, err := h.Open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxPortalUpload))
}
