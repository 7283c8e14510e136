package portal

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/julienschmidt/httprouter"

	"fincom/render"
	"fincom/server/accounting"
	"fincom/server/brdoc"
	"fincom/server/ledger"
	"fincom/server/web"
	"fincom/store"
)

// transactionsPage: GET /portal/transactions, a month's entries by due
// date; an open one can be marked paid into one of the unit's accounts.
func (s *Portal) transactionsPage(p *portalRequest, status int, notice, errText string) {
	s.transactionsForm(p, status, notice, errText, render.PortalEntryForm{}, "", "")
}

// transactionsForm is transactionsPage with the new entry's form as typed
// and the field at fault.
func (s *Portal) transactionsForm(p *portalRequest, status int, notice, errText string, form render.PortalEntryForm, field, fieldErr string) {
	month, first, last := portalMonth(p)
	typ := p.r.URL.Query().Get("tipo")
	if typ != "in" && typ != "out" {
		typ = ""
	}
	entries, err := p.db.EntrySummaries(p.ctx, p.unit.ID, first.ISO(), last.ISO(), typ, 5000)
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	accounts, err := p.db.BankAccounts(p.ctx, p.unit.ID, true)
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	body := render.PortalTransactions{Month: month, Type: typ, Today: store.Today(p.db.Now()).ISO(), Search: strings.TrimSpace(p.r.URL.Query().Get("busca"))}
	if q := p.r.URL.Query(); q.Get("de") != "" {
		body.From, body.To = first.ISO(), last.ISO()
	}
	for _, a := range accounts {
		body.Accounts = append(body.Accounts, render.PortalAccount{Token: a.Token, Name: accountName(a)})
	}
	var found []store.EntrySummary
	for _, e := range entries {
		if matches(body.Search, e.Description, e.Contact) {
			found = append(found, e)
		}
	}
	if s.exportable(p, "", "esta lista", "lancamentos-"+month, func() (render.Table, error) { return accounting.EntriesTable("Lançamentos "+month, found), nil }) {
		return
	}
	found, body.Pager = paginate(p, found)
	for _, e := range found {
		pe := render.PortalEntry{Token: e.Token, Type: e.Type, Description: e.Description, DueDate: render.DateBR(e.DueDate),
			Contact: e.Contact, Account: e.Account, Value: render.BRL(e.Value.StringFixed(2))}
		if e.PayDay != "" {
			pe.PayDay = render.DateBR(e.PayDay)
		}
		body.Entries = append(body.Entries, pe)
	}
	body.Form, body.FormState = form, render.FormState{Field: field, FieldError: fieldErr}
	if body.Form.Key == "" {
		body.Form.Key = store.NewSecret(16)
	}
	if body.Form.DueDate == "" {
		body.Form.DueDate = body.Today
	}
	if body.InCategories, body.OutCategories, err = categoryOptions(p); err != nil {
		s.portalFailed(p, err)
		return
	}
	if body.Suppliers, body.Customers, err = contactChoices(p); err != nil {
		s.portalFailed(p, err)
		return
	}
	if fieldErr != "" {
		errText = "O lançamento não foi cadastrado: " + fieldErr
	}
	p.page(s, status, "transactions", "Lançamentos", "transactions", body, notice, errText)
}

// entryForm is the entry form as typed.
func entryForm(r *http.Request) render.PortalEntryForm {
	v := func(k string) string { return strings.TrimSpace(r.PostFormValue(k)) }
	form := render.PortalEntryForm{Type: v("type"), Description: v("description"), Value: v("value"), DueDate: v("due_date"), Category: v("category"),
		Barcode: v("barcode"), Key: v("form_key"), Contact: v("contact"), Installments: v("installments"), InstallmentDates: v("installment_dates"), Repeat: v("repeat"),
		RepeatTimes: v("repeat_times"), RepeatUntil: v("repeat_until")}
	if form.Type != "in" {
		form.Type = "out"
	}
	return form
}

// applyEntryForm writes the form onto f by the rules /insert_expense and
// /update_expense (and their incomes') hold an entry to: a description,
// a positive value, a due date, a boleto's line by its digits. What the
// form does not show (payment, contact, project, notes) is kept.
func applyEntryForm(form render.PortalEntryForm, f *store.EntryFields) error {
	value, err := amountBR(form.Value)
	switch {
	case form.Description == "" || len([]rune(form.Description)) > 255:
		return fieldRefusal{"description", "informe a descrição (até 255 caracteres)."}
	case err != nil || value == nil || !value.IsPositive():
		return fieldRefusal{"value", "valor inválido: use um valor maior que zero, como 1.250,00."}
	}
	if _, err := store.ParseDateISO(form.DueDate); err != nil {
		return fieldRefusal{"due_date", "informe a data de vencimento."}
	}
	f.Description, f.Value, f.DueDate, f.CategoryToken, f.Barcode = form.Description, store.NewMoney(value.Round(2)), form.DueDate, form.Category, brdoc.Digits(form.Barcode)
	if f.CompetenceDate == "" {
		f.CompetenceDate = form.DueDate
	}
	if f.Barcode != "" && !brdoc.ValidBoleto(f.Barcode) {
		return fieldRefusal{"barcode", "linha digitável inválida: confira os dígitos."}
	}
	return nil
}

// entryAttachment is the form's attachment, held to the spec's file rules.
func entryAttachment(p *portalRequest) ([]store.NewFile, error) {
	file, h, err := p.r.FormFile("file")
	if err != nil {
		return nil, nil
	}
	data, rerr := io.ReadAll(io.LimitReader(file, maxPortalUpload+1))
	file.Close()
	nf, ferr := web.DocumentFile(h.Filename, data)
	if rerr != nil || ferr != nil {
		return nil, fieldRefusal{"file", "anexo inválido: envie um PDF, uma imagem (PNG, JPEG, GIF, WebP) ou um XML de até 10 MiB."}
	}
	return []store.NewFile{nf}, nil
}

// entryRefusal is the field and the Portuguese words of an entry's
// refusal.
func entryRefusal(err error) (string, string) {
	var ref *store.RefError
	if errors.As(err, &ref) || errors.Is(err, store.ErrInvalidReference) {
		return "category", "escolha uma categoria do tipo do lançamento (despesa ou receita)."
	}
	return ledgerWords.find(err)
}

// ledgerWords say a refused split in Portuguese, beside its field.
var ledgerWords = refusals{
	{ledger.ErrInstalments, "installments", "de 2 a 48 parcelas (ou 1, sem parcelar)."},
	{ledger.ErrDates, "installment_dates", "os vencimentos vão em ordem, um por parcela, como 10/12/2026, 10/01/2027."},
	{ledger.ErrTooSmall, "value", "cada parcela precisa de pelo menos R$ 0,01."},
	{ledger.ErrEvery, "repeat", "escolha de quantos em quantos meses repete."},
	{ledger.ErrRecurEnd, "repeat_times", "diga quando a repetição termina: quantas vezes ao todo (2 a 120) ou até que vencimento (depois do primeiro), um dos dois."},
	{ledger.ErrLead, "repeat", "a repetição é lançada de 0 a 60 dias antes do vencimento."},
	{ledger.ErrSplitOnce, "installments", "um lançamento é parcelado ou repete, não os dois."},
	{ledger.ErrWithScreening, "installments", "um documento lido vira um lançamento: parcele ou repita um lançamento à parte."},
}

// portalNewEntry: POST /portal/transactions registers a bill to pay
// or an income to receive, with an attachment, by the rules of
// /insert_expense and /insert_income (the spec's file rules among them).
func (s *Portal) portalNewEntry(p *portalRequest) {
	form := entryForm(p.r)
	f := store.EntryFields{Type: form.Type, Active: true}
	err := applyEntryForm(form, &f)
	if err == nil {
		f.ContactToken, err = contactOf(p, form.Contact)
	}
	var files []store.NewFile
	if err == nil {
		files, err = entryAttachment(p)
	}
	if err == nil && form.Key != "" && !formKeyPattern.MatchString(form.Key) {
		form.Key = ""
		err = fieldRefusal{"description", "o formulário expirou: confira os dados e salve de novo."}
	}
	n := 1
	if form.Installments != "" && form.Installments != "1" {
		if n, _ = strconv.Atoi(form.Installments); n < 2 {
			n = -1 // not a count: the split's own refusal
		}
	}
	made := true
	switch {
	case err != nil:
	case form.Repeat != "" && n != 1:
		err = ledger.ErrSplitOnce
	case form.Repeat != "":
		every, _ := strconv.Atoi(form.Repeat)
		times, _ := strconv.Atoi(form.RepeatTimes)
		if form.RepeatTimes != "" && times == 0 {
			times = -1 // not a count: the recurrence's own refusal
		}
		_, made, err = ledger.CreateRecurring(p.ctx, p.db, p.unit.ID, form.Key, f,
			store.Recurrence{EveryMonths: every, Times: times, Until: form.RepeatUntil, LeadDays: ledger.DefaultLead}, files)
	case n != 1:
		// Split: each instalment an entry of the group, all or none.
		var dates []string
		if dates, err = datesBR(form.InstallmentDates); err == nil {
			_, made, err = ledger.CreateInstalments(p.ctx, p.db, p.unit.ID, form.Key, f, n, dates, files)
		}
	default:
		// The form's one-time key: sent again (a reload, a double click),
		// it makes nothing twice.
		_, made, err = p.db.InsertEntryOnce(p.ctx, p.unit.ID, form.Key, f, files)
	}
	if s.formRefused(p, err, entryRefusal, func(field, words string) { s.transactionsForm(p, http.StatusBadRequest, "", "", form, field, words) }) {
		return
	}
	done := "criado"
	if !made {
		done = "repetido"
	}
	http.Redirect(p.w, p.r, "/portal/transactions?unit="+url.QueryEscape(p.unit.Token)+"&mes="+url.QueryEscape(form.DueDate[:7])+"&feito="+done,
		http.StatusSeeOther)
}

// entryPage: GET /portal/transactions/:token, an entry's form to change it
// and its attachments.
func (s *Portal) entryPage(p *portalRequest, token string, status int, form *render.PortalEntryForm, field, fieldErr string) {
	f, err := p.db.EntryByToken(p.ctx, p.unit.ID, token)
	if s.readFailed(p, err, "Lançamento", "transactions") {
		return
	}
	if form == nil {
		form = &render.PortalEntryForm{Type: f.Type, Description: f.Description, Value: strings.TrimPrefix(render.BRL(f.Value.StringFixed(2)), "R$ "),
			DueDate: f.DueDate, Category: f.CategoryToken, Barcode: f.Barcode}
		if f.ContactToken != "" {
			if c, err := p.db.ContactByToken(p.ctx, p.unit.ID, f.ContactToken); err == nil {
				form.Contact = contactChoice(c)
			}
		}
	}
	body := render.PortalEntryEdit{Token: token, Form: *form, FormState: render.FormState{Field: field, FieldError: fieldErr}}
	if body.Suppliers, body.Customers, err = contactChoices(p); err != nil {
		s.portalFailed(p, err)
		return
	}
	if f.PayDay != "" {
		body.PayDay = render.DateBR(f.PayDay)
	}
	cats, err := p.db.Categories(p.ctx, p.unit.ID, f.Type, "")
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	for _, c := range cats {
		body.Categories = append(body.Categories, render.PortalOption{Value: c.Token, Label: c.Category})
	}
	files, err := p.db.EntryFiles(p.ctx, p.unit.ID, f.Type, token)
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	for _, fi := range files {
		body.Files = append(body.Files, render.PortalFile{Token: fi.Token, Name: fi.Name, Size: strconv.FormatInt((fi.Size+1023)/1024, 10) + " KiB"})
	}
	group, err := p.db.EntryGroup(p.ctx, p.unit.ID, token)
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	for _, e := range group {
		if e.Token == token {
			body.Instalment = strconv.Itoa(e.Instalment) + " de " + strconv.Itoa(e.Instalments)
		}
		pe := render.PortalEntry{Token: e.Token, Description: e.Description, DueDate: render.DateBR(e.DueDate), Value: render.BRL(e.Value.StringFixed(2))}
		if e.PayDay != "" {
			pe.PayDay = render.DateBR(e.PayDay)
		}
		body.Group = append(body.Group, pe)
	}
	if r, err := p.db.RecurrenceOfEntry(p.ctx, p.unit.ID, token); err == nil {
		body.Recurrence, body.Repeating = recurrenceWords(r), !r.Stopped
	} else if !errors.Is(err, store.ErrNotFound) {
		s.portalFailed(p, err)
		return
	}
	errText := unsaved(fieldErr)
	p.page(s, status, "entry", "Editar lançamento", "transactions", body, "", errText)
}

// portalEditEntry: POST /portal/transactions/:token saves an entry's form
// (and adds its attachment) by the rules /update_expense and
// /update_income hold it to; its type stays.
func (s *Portal) portalEditEntry(p *portalRequest, token string) {
	form := entryForm(p.r)
	old, err := p.db.EntryByToken(p.ctx, p.unit.ID, token)
	if s.readFailed(p, err, "Lançamento", "transactions") {
		return
	}
	form.Type = old.Type
	files, err := entryAttachment(p)
	var contact string
	if err == nil {
		contact, err = contactOf(p, form.Contact)
	}
	if err == nil {
		err = p.db.UpdateEntry(p.ctx, p.unit.ID, old.Type, token, func(f *store.EntryFields) error {
			f.ContactToken = contact
			return applyEntryForm(form, f)
		}, files)
	}
	if s.formRefused(p, err, entryRefusal, func(field, words string) { s.entryPage(p, token, http.StatusBadRequest, &form, field, words) }) {
		return
	}
	http.Redirect(p.w, p.r, "/portal/transactions?unit="+url.QueryEscape(p.unit.Token)+"&mes="+url.QueryEscape(form.DueDate[:7])+"&feito=alterado",
		http.StatusSeeOther)
}

// portalPayEntry: POST /portal/transactions/:token/pay marks an entry paid
// on a day into an account, as /update_expense and /update_income do with
// pay_day and id_token_bank_account, with their texts.
func (s *Portal) portalPayEntry(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	s.withSession(func(p *portalRequest) {
		typ, api := p.r.PostFormValue("type"), "/update_income"
		if typ == "out" {
			api = "/update_expense"
		} else if typ != "in" {
			typ = "in"
		}
		day, account := p.r.PostFormValue("pay_day"), p.r.PostFormValue("account")
		var err error
		if _, perr := store.ParseDateISO(day); perr != nil {
			err = web.ErrInvalidPayDay
		} else {
			err = p.db.UpdateEntry(p.ctx, p.unit.ID, typ, ps.ByName("token"), func(f *store.EntryFields) error {
				f.PayDay, f.BankAccountToken = day, account
				return nil
			}, nil)
		}
		if err != nil {
			status, text := s.routeError(api, err)
			s.transactionsPage(p, status, "", text)
			return
		}
		http.Redirect(p.w, p.r, "/portal/transactions?unit="+url.QueryEscape(p.unit.Token)+"&mes="+url.QueryEscape(p.r.URL.Query().Get("mes"))+"&feito=pago", http.StatusSeeOther)
	})(w, r, ps)
}

// categoryOptions are the unit's income and expense categories as a
// form's choices.
func categoryOptions(p *portalRequest) (in, out []render.PortalOption, err error) {
	for typ, dst := range map[string]*[]render.PortalOption{"in": &in, "out": &out} {
		cats, err := p.db.Categories(p.ctx, p.unit.ID, typ, "")
		if err != nil {
			return nil, nil, err
		}
		for _, c := range cats {
			*dst = append(*dst, render.PortalOption{Value: c.Token, Label: c.Category})
		}
	}
	return in, out, nil
}

// portalEntryFile: GET /portal/transactions/:token/files/:file, an
// attachment of an entry of the unit, opened in the browser (a PDF, an
// image; ?baixar=1 downloads it), for whoever reads the unit's entries.
func (s *Portal) portalEntryFile(p *portalRequest, ps httprouter.Params, token string, e store.EntryFields) {
	f, err := p.db.EntryFile(p.ctx, p.unit.ID, e.Type, token, ps.ByName("file"))
	if errors.Is(err, store.ErrFileNotFound) {
		s.portalMissing(p, "Anexo", "transactions")
		return
	}
	if s.readFailed(p, err, "Lançamento", "transactions") {
		return
	}
	disposition := "inline"
	if p.r.URL.Query().Get("baixar") == "1" {
		disposition = "attachment"
	}
	h := p.w.Header()
	h.Set("Content-Type", f.ContentType)
	h.Set("Content-Disposition", mime.FormatMediaType(disposition, map[string]string{"filename": f.Name}))
	h.Set("Content-Length", strconv.Itoa(len(f.Data)))
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	// Shown in place, never a page of the portal's: no script runs.
	h.Set("Content-Security-Policy", "sandbox; default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; plugin-types application/pdf")
	p.w.Write(f.Data)
}

// portalRemoveEntryFile: POST /portal/transactions/:token/files/:file/remove
// removes an attachment of an entry, as /delete_expense_files and
// /delete_income_files do.
func (s *Portal) portalRemoveEntryFile(p *portalRequest, ps httprouter.Params, token string, e store.EntryFields) {
	err := p.db.DeleteEntryFiles(p.ctx, p.unit.ID, e.Type, token, []string{ps.ByName("file")})
	if errors.Is(err, store.ErrFileNotFound) {
		s.portalMissing(p, "Anexo", "transactions")
		return
	}
	if s.readFailed(p, err, "Lançamento", "transactions") {
		return
	}
	http.Redirect(p.w, p.r, "/portal/transactions/"+url.PathEscape(token)+"?unit="+url.QueryEscape(p.unit.Token), http.StatusSeeOther)
}

// contactChoice is a contact as the contact field offers it: its name and
// its CPF or CNPJ.
func contactChoice(c store.ContactFields) string {
	return c.DisplayName() + " · " + brdoc.FormatRegister(c.Register)
}

// contactChoices are the unit's suppliers and customers (each with those
// who are both) as the contact field offers them.
func contactChoices(p *portalRequest) (suppliers, customers []string, err error) {
	for _, k := range []struct {
		kind string
		dst  *[]string
	}{{"supplier", &suppliers}, {"customer", &customers}} {
		list, err := p.db.Contacts(p.ctx, p.unit.ID, store.ContactFilter{Kind: k.kind})
		if err != nil {
			return nil, nil, err
		}
		for _, c := range list {
			*k.dst = append(*k.dst, c.ContactName.String+" · "+brdoc.FormatRegister(c.Register))
		}
	}
	return suppliers, customers, nil
}

// contactOf finds the unit's active contact a contact field names: by its
// CPF or CNPJ (the digits typed, or those of a choice offered), else by
// its name when one contact has it; "" for a blank field.
func contactOf(p *portalRequest, typed string) (string, error) {
	typed = strings.TrimSpace(typed)
	if typed == "" {
		return "", nil
	}
	name, register, _ := strings.Cut(typed, " · ")
	if register == "" {
		register = typed
	}
	if reg := brdoc.Clean(register); len(reg) == 11 || len(reg) == 14 {
		list, err := p.db.Contacts(p.ctx, p.unit.ID, store.ContactFilter{Register: reg})
		if err != nil {
			return "", err
		}
		if len(list) == 1 {
			return list[0].Token, nil
		}
	}
	list, err := p.db.Contacts(p.ctx, p.unit.ID, store.ContactFilter{Search: name})
	if err != nil {
		return "", err
	}
	var found []store.Contact
	for _, c := range list {
		if strings.EqualFold(c.ContactName.String, strings.TrimSpace(name)) || strings.EqualFold(c.CompanyName.String, strings.TrimSpace(name)) {
			found = append(found, c)
		}
	}
	if len(found) != 1 {
		return "", fieldRefusal{"contact", "contato não encontrado: escolha um da lista, ou escreva o nome ou o CPF/CNPJ de um contato cadastrado."}
	}
	return found[0].Token, nil
}

// recurrenceWords say how an entry repeats.
func recurrenceWords(r store.RecurrenceState) string {
	every := "Repete todo mês"
	if r.EveryMonths > 1 {
		every = "Repete a cada " + strconv.Itoa(r.EveryMonths) + " meses"
	}
	end := ", até o vencimento de " + render.DateBR(r.Until)
	if r.Times > 0 {
		end = ", " + strconv.Itoa(r.Times) + " vezes ao todo"
	}
	state := "; " + strconv.Itoa(r.Made) + " lançada(s) até agora, cada uma " + strconv.Itoa(r.LeadDays) + " dias antes do vencimento."
	if r.Stopped {
		state = "; parada, com " + strconv.Itoa(r.Made) + " lançada(s)."
	}
	return every + end + state
}

// portalStopRecurrence: POST /portal/transactions/:token/stop stops the
// repetition of an entry; what it made stays.
func (s *Portal) portalStopRecurrence(p *portalRequest, _ httprouter.Params, token string, _ store.EntryFields) {
	if s.readFailed(p, p.db.StopRecurrence(p.ctx, p.unit.ID, token), "Lançamento que repete", "transactions") {
		return
	}
	http.Redirect(p.w, p.r, "/portal/transactions/"+url.PathEscape(token)+"?unit="+url.QueryEscape(p.unit.Token), http.StatusSeeOther)
}

// portalCancelGroup: POST /portal/transactions/:token/cancel-group
// cancels the open instalments of the entry's group, as
// /cancel_entry_group does; the paid ones stay.
func (s *Portal) portalCancelGroup(p *portalRequest, _ httprouter.Params, token string, e store.EntryFields) {
	if _, _, err := p.db.CancelEntryGroup(p.ctx, p.unit.ID, token); s.readFailed(p, err, "Lançamento parcelado", "transactions") {
		return
	}
	http.Redirect(p.w, p.r, "/portal/transactions?unit="+url.QueryEscape(p.unit.Token)+"&mes="+url.QueryEscape(e.DueDate[:7])+"&feito=alterado",
		http.StatusSeeOther)
}

// withEntry is withSession for a page or an action on an entry of the
// unit (the path's token): the entry is read (the portal's not-found
// page when the unit has none), and an income's action is held to the
// role rule of incomeRoute, as the form's own route holds an expense's
// ("" the same for both).
func (s *Portal) withEntry(incomeRoute string, h func(p *portalRequest, ps httprouter.Params, token string, e store.EntryFields)) httprouter.Handle {
	return func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
		s.withSession(func(p *portalRequest) {
			token := ps.ByName("token")
			e, err := p.db.EntryByToken(p.ctx, p.unit.ID, token)
			if s.readFailed(p, err, "Lançamento", "transactions") {
				return
			}
			if e.Type == "in" && incomeRoute != "" && !s.MayAct(p.role, incomeRoute) {
				p.page(s, http.StatusForbidden, "units", "Sem permissão", "", []render.PortalUnit{}, "", roleRefusal(p.role))
				return
			}
			h(p, ps, token, e)
		})(w, r, ps)
	}
}

// datesBR reads dates typed as DD/MM/AAAA, separated by commas or
// spaces, as YYYY-MM-DD; none for a blank text.
func datesBR(typed string) ([]string, error) {
	var out []string
	for _, f := range strings.FieldsFunc(typed, func(r rune) bool { return r == ',' || r == ';' || r == ' ' }) {
		d, err := store.ParseDateBR(f)
		if err != nil {
			return nil, ledger.ErrDates
		}
		out = append(out, d.ISO())
	}
	return out, nil
}
