package portal

import (
	"cmp"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"fincom/render"
	"fincom/server/accounting"
	"fincom/server/billing"
	"fincom/server/brdoc"
	"fincom/server/fiscal/sefaz"
	"fincom/server/invoicing"
	"fincom/server/problem"
	"fincom/server/settings"
	"fincom/store"
)

// A unit's Configurações (/portal/settings?unit=): its company and fiscal
// profile, its A1 certificate and its PIX key, each a form of its own,
// saved through server/settings as `fincom unit set` and `fincom unit
// cert` save them. Only an owner of the unit sees and sends them (actOwner,
// checked on every POST); the audit log records each change under the
// user.

// settingsWords say in Portuguese why a setting was refused, beside its
// field.
var settingsWords = refusals{
	{settings.ErrLength, "", "use de 2 a 60 caracteres (número e complemento: de 1 a 60)."},
	{settings.ErrZip, "", "CEP inválido: use os 8 dígitos."},
	{settings.ErrZipUnknown, "", "CEP inexistente: nenhum estado usa essa faixa."},
	{settings.ErrZipState, "", "o CEP é de outro estado que o da cidade."},
	{settings.ErrCity, "", "cidade não encontrada na UF: escreva o nome como o IBGE (a lista aparece ao digitar o CEP)."},
	{settings.ErrPhone, "", "telefone com DDD: de 6 a 14 dígitos."},
	{settings.ErrIE, "", "inscrição estadual inválida: de 2 a 14 dígitos, ou ISENTO."},
	{settings.ErrEnvironment, "", "escolha homologação ou produção."},
	{settings.ErrContingency, "", "escolha desligada, SVC ou EPEC."},
	{settings.ErrNFSeIssuer, "", "escolha o sistema nacional ou o do município."},
	{settings.ErrCRT, "", "escolha o regime tributário da lista."},
	{settings.ErrCNAE, "", "o CNAE tem 7 dígitos."},
	{settings.ErrRate, "", "alíquota em porcentagem, de 0 a 100, até 4 casas decimais (como 18 ou 0,65)."},
	{settings.ErrCSCID, "", "o identificador do CSC tem até 6 dígitos (como 000001)."},
	{settings.ErrCSC, "", "o CSC que a SEFAZ fornece tem de 16 a 36 caracteres."},
	{settings.ErrEmail, "", "e-mail inválido."},
	{settings.ErrPixKey, "", "não é uma chave PIX: um CPF ou CNPJ com dígitos válidos, um celular com +55 e DDD, um e-mail ou uma chave aleatória."},
	{settings.ErrIM, "", "a inscrição municipal tem de 1 a 15 letras e dígitos, sem pontos."},
	{settings.ErrCNPJ, "", "CNPJ inválido: confira os dígitos verificadores."},
	{settings.ErrNotReady, "", "a unidade ainda não pode emitir em produção."},
	{settings.ErrCNPJSet, "", "a unidade já tem CNPJ: ele não muda."},
	{settings.ErrCertFile, "", "o arquivo não é um certificado A1 (.pfx ou .p12) com a sua chave privada."},
	{settings.ErrCertPassword, "", "senha do certificado incorreta."},
	{settings.ErrCertExpired, "", "o certificado está vencido."},
	{settings.ErrCertNotYet, "", "o certificado ainda não está válido."},
	{settings.ErrCertNoCNPJ, "", "o certificado não traz CNPJ (o e-CNPJ da ICP-Brasil traz)."},
	{settings.ErrCertOther, "", "o certificado é de outra empresa."},
	{settings.ErrCertNoUnit, "", "a unidade ainda não tem CNPJ: informe-o em Empresa e fiscal antes de instalar o certificado."},
	{settings.ErrPSPURL, "", "use o endereço https do PSP."},
	{settings.ErrRequired, "", "obrigatório."},
	{settings.ErrPSPRefused, "", "o PSP não aceitou a conexão; nada foi salvo."},
	{settings.ErrPSPWebhook, "", "a conexão foi salva, mas o PSP recusou o webhook da unidade: os PIX recebidos serão consultados a cada poucos minutos."},
	{settings.ErrNoPSPToDrop, "", "a unidade não tem conexão com um PSP."},
	{settings.ErrProvider, "", "escolha o banco da lista."},
	{settings.ErrAgency, "", "agência inválida para o banco: use a agência com o seu dígito, se o banco tiver (como 1234-5)."},
	{settings.ErrAccount, "", "conta inválida para o banco: use a conta com o seu dígito verificador (como 12345-6), que é conferido."},
	{settings.ErrWallet, "", "escolha uma carteira do banco."},
	{settings.ErrAgreementCode, "", "código do convênio inválido (Bradesco: o código do convênio; Banco do Brasil: o convênio, de 4, 6 ou 7 dígitos; Santander: o código do beneficiário, 7 dígitos; Caixa: o código do beneficiário, 6 dígitos)."},
	{settings.ErrVariation, "", "informe a variação da carteira do Banco do Brasil (3 dígitos, como 019)."},
	{settings.ErrNextOurNumber, "", "o próximo nosso número é um número positivo dentro do limite do banco, depois dos já emitidos."},
	{settings.ErrBankCNPJ, "", "o convênio precisa do CNPJ da unidade (o beneficiário nos arquivos do banco): informe-o em Empresa e fiscal."},
	{settings.ErrBankAccount, "", "a conta escolhida não é uma conta bancária da unidade."},
	{settings.ErrBank, "", "escolha um banco da lista."},
	{settings.ErrLateTerms, "", "porcentagem de 0 a 10, como 2 ou 1,5."},
	{settings.ErrCodeChange, "", "há boletos em aberto cujo nosso número é feito deste convênio: baixe ou cancele-os antes de trocar o convênio."},
	{settings.ErrBankChange, "", "há boletos em aberto deste convênio no banco atual: baixe ou cancele-os antes de trocar o banco."},
	{settings.ErrPersonName, "", "informe o nome (até 120 caracteres)."},
	{settings.ErrPersonRole, "", "escolha um papel da lista."},
	{settings.ErrNoPerson, "", "não há usuário ativo com esse e-mail."},
	{settings.ErrLastOwner, "", "o domínio ficaria sem um proprietário de todas as unidades: torne outro usuário proprietário antes."},
	{billing.ErrReminderDays, "", "marque dias da lista: de 0 a 60 dias depois do vencimento, cada um uma vez."},
	{invoicing.ErrNoSecretsKey, "", "o servidor foi iniciado sem a chave que guarda os segredos lacrados (--secrets-key-file): peça ao operador."},
}

// settingsRefusal is the field and the Portuguese words of a refusal of
// the settings.
func settingsRefusal(err error) (string, string) {
	var fe settings.FieldError
	if !errors.As(err, &fe) {
		return "", ""
	}
	var other settings.OtherFirm
	if errors.As(err, &other) {
		return fe.Field, "o certificado é da empresa de CNPJ " + brdoc.FormatRegister(other.Named) + ", e a unidade é do CNPJ " +
			brdoc.FormatRegister(other.Unit) + ": a raiz (os 8 primeiros dígitos) precisa ser a mesma."
	}
	var notReady settings.NotReady
	if errors.As(err, &notReady) {
		var names []string
		for _, m := range notReady.Missing {
			names = append(names, cmp.Or(productionNeeds[m], m))
		}
		return fe.Field, "a unidade ainda não pode emitir em produção: falta " + strings.Join(names, ", ") + "."
	}
	_, words := settingsWords.find(err)
	// An outside party's own answer follows our words.
	if p, ok := fe.Err.(*problem.Problem); ok && p.Details != nil && words != "" {
		words += " Resposta: " + fmt.Sprint(p.Details)
	}
	return fe.Field, words
}

// productionNeeds name what a unit lacks for production (settings.Missing).
var productionNeeds = map[string]string{"certificate": "o certificado digital A1", "cnpj": "o CNPJ", "city": "a cidade", "street": "o logradouro",
	"number": "o número", "district": "o bairro", "zip": "o CEP", "ie": "a inscrição estadual (ou ISENTO)", "crt": "o regime tributário",
	"icms-rate": "a alíquota do ICMS", "pis-rate": "a do PIS", "cofins-rate": "a da COFINS"}

// regimes are the tax regimes (CRT) as the owner chooses one.
var regimes = []render.PortalOption{{Value: "1", Label: "Simples Nacional"}, {Value: "2", Label: "Simples Nacional, excesso de sublimite de receita bruta"},
	{Value: "3", Label: "Regime normal (lucro presumido ou real)"}, {Value: "4", Label: "MEI (microempreendedor individual)"}}

// settingsPage shows the unit's Configurações; typed, when not nil, puts
// back what a refused form held.
func (s *Portal) settingsPage(p *portalRequest, status int, typed func(f *render.PortalSettingsForm), section, field, fieldErr, notice string) {
	if p.unit.ID == 0 {
		p.page(s, http.StatusOK, "units", "Unidades", "units", []render.PortalUnit{}, "", "")
		return
	}
	if p.role != store.RoleOwner {
		p.page(s, http.StatusForbidden, "units", "Sem permissão", "units", []render.PortalUnit{}, "",
			"Só um proprietário da unidade vê e altera as suas configurações. O perfil fiscal da unidade está em Unidades.")
		return
	}
	prof, err := p.db.UnitProfile(p.ctx, p.unit.ID)
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	body := render.PortalSettings{Section: section, Production: prof.FiscalEnvironment == store.Producao,
		Contingency: cmp.Or(prof.FiscalContingency, "off"), ContingencySince: eventDate(prof.FiscalContingencySince), FormState: render.FormState{Field: field, FieldError: fieldErr}, Regimes: regimes,
		CNPJSet: p.unit.CNPJ != "", CSCSaved: len(prof.CSCSealed) > 0, PixKey: formatPixKey(prof.PixKey)}
	body.Form = settingsFormOf(p.unit, prof)
	if c, err := p.db.UnitPSP(p.ctx, p.unit.ID); err == nil {
		body.PSP = &render.PortalPSP{BaseURL: c.BaseURL, TokenURL: c.TokenURL, ClientID: c.ClientID, PixKey: formatPixKey(c.PixKey),
			Updated: render.DateTimeBR(parseStamp(c.UpdatedAt))}
		if cert, err := x509.ParseCertificate(c.Cert); err == nil {
			body.PSP.Certificate = cert.Subject.CommonName + " · válido até " + render.DateBR(cert.NotAfter.Format(time.DateOnly))
		}
		body.Form.BaseURL, body.Form.TokenURL, body.Form.ClientID, body.Form.PSPPixKey = c.BaseURL, c.TokenURL, c.ClientID, c.PixKey
	} else if !errors.Is(err, store.ErrNotFound) {
		s.portalFailed(p, err)
		return
	}
	if typed != nil {
		typed(&body.Form)
	}
	if body.People, err = s.peopleOf(p); err != nil {
		s.portalFailed(p, err)
		return
	}
	body.EveryUnit = p.grants.OwnerOfAll()
	for _, r := range store.Roles {
		body.Roles = append(body.Roles, render.PortalOption{Value: string(r), Label: roleName(r)})
	}
	if body.Reminders, err = reminderSteps(p); err != nil {
		s.portalFailed(p, err)
		return
	}
	if body.OrderPDF, err = p.db.OrderPDFInMail(p.ctx, p.unit.ID); err != nil {
		s.portalFailed(p, err)
		return
	}
	if body.Banks, body.Remittances, err = s.banksOf(p, body.Form.Agreement); err != nil {
		s.portalFailed(p, err)
		return
	}
	if c, err := p.db.Certificate(p.ctx, p.unit.ID); err == nil {
		body.Certificate = certificateOf(c, p.db.Now())
	} else if !errors.Is(err, store.ErrNotFound) {
		s.portalFailed(p, err)
		return
	}
	errText := ""
	if fieldErr != "" {
		errText = "Nada foi salvo: " + fieldErr
	}
	p.page(s, status, "settings", "Configurações", "units", body, notice, errText)
}

// certificateOf is an installed certificate as the owner reads it.
func certificateOf(c store.UnitCertificate, now time.Time) *render.PortalCertificate {
	// An e-CNPJ's common name is "NAME:CNPJ": the CNPJ is shown apart.
	holder := strings.TrimSuffix(c.Subject, ":"+c.CNPJ)
	return &render.PortalCertificate{Holder: holder, CNPJ: brdoc.FormatRegister(c.CNPJ), Until: render.DateBR(c.NotAfter.Format(time.DateOnly)),
		Ending: c.NotAfter.Sub(now) <= store.CertificateWarning, Expired: !c.NotAfter.After(now), Test: c.Test}
}

// settingsFormOf is the stored unit and profile as the form shows them.
func settingsFormOf(u store.Unit, p store.UnitProfile) render.PortalSettingsForm {
	f := render.PortalSettingsForm{CNPJ: brdoc.FormatRegister(u.CNPJ), Zip: formatCEP(p.Zip), Street: p.Street, Number: p.Number, Complement: p.Complement,
		District: p.District, IE: p.IE, CNAE: p.CNAE, Phone: brdoc.FormatPhone(p.Phone), ICMSRate: commaDecimal(p.ICMSRate),
		PISRate: commaDecimal(p.PISRate), COFINSRate: commaDecimal(p.COFINSRate), CSCID: p.CSCID, IM: u.IM, PixKey: formatPixKey(p.PixKey),
		AccountantEmail: p.AccountantEmail}
	if p.CRT != 0 {
		f.CRT = strconv.Itoa(p.CRT)
	}
	if m, ok := brdoc.LookupIBGE(u.CityIBGE); ok {
		f.City, f.State = m.Name, m.State
	}
	return f
}

// commaDecimal writes a rate as people type it here (18, 0,65).
func commaDecimal(v string) string { return strings.ReplaceAll(v, ".", ",") }

// formatPixKey is a stored PIX key as people read it: a CPF or CNPJ
// masked, a phone with its area code apart.
func formatPixKey(key string) string {
	switch _, kind, err := brdoc.NormalizePixKey(key); {
	case err != nil:
		return key
	case kind == brdoc.PixCPF || kind == brdoc.PixCNPJ:
		return brdoc.FormatRegister(key)
	case kind == brdoc.PixPhone:
		return "+55 " + brdoc.FormatPhone(strings.TrimPrefix(key, "+55"))
	}
	return key
}

// settingsDone are the notices after a section is saved (?feito=).
var settingsDone = map[string]string{"perfil": "Empresa e fiscal salvos.", "certificado": "Certificado digital instalado.",
	"convenio": "Convênio de cobrança salvo.", "papel": "Papel alterado.", "pix": "Chave PIX salva.", "pix-removida": "Chave PIX removida.", "contador": "E-mail do contador salvo.", "cobranca": "Régua de cobrança salva.", "pedido-pdf": "Anexo do pedido de venda salvo.",
	"contador-sem": "O pacote do contador não será mais enviado por e-mail.", "producao": "A unidade passou a emitir em produção: as notas têm valor fiscal.",
	"psp": "PSP conectado: o PSP respondeu e a conexão foi salva.", "psp-removido": "Conexão com o PSP removida.",
	"homologacao": "A unidade voltou a emitir em homologação: as notas não têm valor fiscal.", "contingencia": "Modo de emissão salvo.", "pacote": "Pacote deste mês enviado ao contador (na fila de e-mails)."}

// settingsSaved answers a section saved: the page again, by GET.
func settingsSaved(p *portalRequest, done string) {
	http.Redirect(p.w, p.r, "/portal/settings?unit="+url.QueryEscape(p.unit.Token)+"&feito="+done, http.StatusSeeOther)
}

// portalSettingsProfile: POST /portal/settings/profile saves the
// company and fiscal profile as `fincom unit set` does.
func (s *Portal) portalSettingsProfile(p *portalRequest) {
	v := func(k string) string { return strings.TrimSpace(p.r.PostFormValue(k)) }
	form := render.PortalSettingsForm{CNPJ: v("cnpj"), Zip: v("zip"), Street: v("street"), Number: v("number"), Complement: v("complement"),
		District: v("district"), City: v("city"), State: strings.ToUpper(v("state")), IE: v("ie"), CRT: v("crt"), CNAE: v("cnae"), Phone: v("phone"),
		ICMSRate: v("icms-rate"), PISRate: v("pis-rate"), COFINSRate: v("cofins-rate"), CSCID: v("csc-id"), IM: v("im")}
	ch := settings.Profile{Zip: &form.Zip, Street: &form.Street, Number: &form.Number, Complement: &form.Complement, District: &form.District,
		City: &form.City, State: &form.State, IE: &form.IE, CNAE: &form.CNAE, Phone: &form.Phone, ICMSRate: &form.ICMSRate, PISRate: &form.PISRate,
		COFINSRate: &form.COFINSRate, CSCID: &form.CSCID, IM: &form.IM}
	if p.unit.CNPJ == "" {
		ch.CNPJ = &form.CNPJ
	}
	if form.CRT != "" {
		crt, err := strconv.Atoi(form.CRT)
		if err != nil {
			crt = -1
		}
		ch.CRT = &crt
	}
	// The CSC is never shown again: left blank, the stored one stays.
	csc := v("csc")
	switch {
	case csc != "":
		ch.CSC = &csc
	case p.r.PostFormValue("csc-remove") == "1":
		ch.CSC = &csc
	}
	_, _, err := settings.Set(p.ctx, p.db, p.unit.Token, ch, s.Invoices.Keyring)
	if s.formRefused(p, err, settingsRefusal, func(field, words string) {
		s.settingsPage(p, http.StatusBadRequest, func(f *render.PortalSettingsForm) {
			kept := *f
			*f = form
			f.PixKey, f.AccountantEmail, f.BaseURL, f.TokenURL, f.ClientID, f.PSPPixKey = kept.PixKey, kept.AccountantEmail, kept.BaseURL, kept.TokenURL,
				kept.ClientID, kept.PSPPixKey
		}, "profile", field, words, "")
	}) {
		return
	}
	settingsSaved(p, "perfil")
}

// maxPFX bounds a certificate file: an A1 is a few KiB.
const maxPFX = 64 << 10

// portalSettingsCertificate: POST /portal/settings/certificate installs
// the unit's A1 certificate as `fincom unit cert` does; the password is
// used once and not kept.
func (s *Portal) portalSettingsCertificate(p *portalRequest) {
	again := func(field, words string) {
		s.settingsPage(p, http.StatusBadRequest, nil, "certificate", field, words, "")
	}
	f, _, err := p.r.FormFile("pfx")
	if err != nil {
		again("pfx", "escolha o arquivo do certificado (.pfx ou .p12).")
		return
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxPFX+1))
	if err != nil || len(data) > maxPFX {
		again("pfx", "o arquivo não é um certificado A1 (.pfx ou .p12) com a sua chave privada.")
		return
	}
	_, err = settings.InstallCertificate(p.ctx, p.db, p.unit, s.Invoices.Keyring, data, p.r.PostFormValue("password"))
	if s.formRefused(p, err, settingsRefusal, again) {
		return
	}
	settingsSaved(p, "certificado")
}

// portalSettingsPix: POST /portal/settings/pix sets (or, blank, removes)
// the unit's own PIX key, as `fincom unit set --pix-key` does.
func (s *Portal) portalSettingsPix(p *portalRequest) {
	key := strings.TrimSpace(p.r.PostFormValue("pix-key"))
	_, _, err := settings.Set(p.ctx, p.db, p.unit.Token, settings.Profile{PixKey: &key}, s.Invoices.Keyring)
	if s.formRefused(p, err, settingsRefusal, func(field, words string) {
		s.settingsPage(p, http.StatusBadRequest, func(f *render.PortalSettingsForm) { f.PixKey = key }, "pix", field, words, "")
	}) {
		return
	}
	if key == "" {
		settingsSaved(p, "pix-removida")
		return
	}
	settingsSaved(p, "pix")
}

// stepWords are the first steps as the owner reads them, with the
// section of Configurações that does each.
var stepWords = map[string]render.PortalStep{
	"profile":     {Label: "Empresa e fiscal: CNPJ, endereço, inscrição estadual e regime", Section: "empresa"},
	"certificate": {Label: "Certificado digital A1", Section: "certificado"},
	"environment": {Label: "Ambiente fiscal: emitir em produção", Section: "ambiente"},
	"pix":         {Label: "Chave PIX ou PSP, para receber PIX", Section: "pix"},
	"bank":        {Label: "Convênio de cobrança com um banco, para emitir boletos", Section: "banco"},
}

// firstSteps are the unit's first steps while one is left, none once
// every one is done.
func (s *Portal) firstSteps(p *portalRequest) ([]render.PortalStep, error) {
	steps, err := settings.FirstSteps(p.ctx, p.db, p.unit)
	if err != nil {
		return nil, err
	}
	var out []render.PortalStep
	left := false
	for _, st := range steps {
		w := stepWords[st.Key]
		w.Done = st.Done
		left = left || !st.Done
		out = append(out, w)
	}
	if !left {
		return nil, nil
	}
	return out, nil
}

// reminderChoices are the steps a unit's collection schedule offers: the
// due day, 3, 10 and 30 days after it (the default: the first three).
var reminderChoices = []render.PortalReminderStep{{Day: 0, Label: "No dia do vencimento"}, {Day: 3, Label: "3 dias depois do vencimento"},
	{Day: 10, Label: "10 dias depois do vencimento"}, {Day: 30, Label: "30 dias depois do vencimento"}}

// reminderSteps are the unit's schedule as the form shows it: each step
// offered, on when the schedule has it (a step set through elsewhere
// shown too).
func reminderSteps(p *portalRequest) ([]render.PortalReminderStep, error) {
	days, err := p.db.ReminderDays(p.ctx, p.unit.ID)
	if err != nil {
		return nil, err
	}
	steps, err := billing.ReminderSteps(days)
	if err != nil {
		return nil, err
	}
	out := slices.Clone(reminderChoices)
	for _, d := range steps {
		i := slices.IndexFunc(out, func(s render.PortalReminderStep) bool { return s.Day == d })
		if i < 0 {
			out = append(out, render.PortalReminderStep{Day: d, Label: strconv.Itoa(d) + " dias depois do vencimento"})
			i = len(out) - 1
		}
		out[i].On = true
	}
	slices.SortFunc(out, func(a, b render.PortalReminderStep) int { return a.Day - b.Day })
	return out, nil
}

// portalSettingsReminders: POST /portal/settings/reminders sets the
// unit's collection schedule: the steps ticked.
func (s *Portal) portalSettingsReminders(p *portalRequest) {
	var days []int
	for _, v := range p.r.PostForm["day"] {
		d, err := strconv.Atoi(v)
		if err != nil {
			d = -1
		}
		days = append(days, d)
	}
	err := settings.SetReminders(p.ctx, p.db, p.unit.ID, days)
	if s.formRefused(p, err, settingsRefusal, func(field, words string) {
		s.settingsPage(p, http.StatusBadRequest, nil, "reminders", field, words, "")
	}) {
		return
	}
	settingsSaved(p, "cobranca")
}

// portalSettingsOrderPDF: POST /portal/settings/order-pdf sets whether
// the unit's charge e-mails carry the order's "Pedido de venda" PDF.
func (s *Portal) portalSettingsOrderPDF(p *portalRequest) {
	if err := p.db.SetOrderPDFInMail(p.ctx, p.unit.ID, p.r.PostFormValue("order_pdf") == "1"); err != nil {
		s.portalFailed(p, err)
		return
	}
	settingsSaved(p, "pedido-pdf")
}

// portalSettingsAccountant: POST /portal/settings/accountant sets (or,
// blank, removes) where the accountant's package is e-mailed each month,
// as `fincom unit set --accountant-email` does.
func (s *Portal) portalSettingsAccountant(p *portalRequest) {
	email := strings.TrimSpace(p.r.PostFormValue("accountant-email"))
	_, _, err := settings.Set(p.ctx, p.db, p.unit.Token, settings.Profile{AccountantEmail: &email}, s.Invoices.Keyring)
	if s.formRefused(p, err, settingsRefusal, func(field, words string) {
		s.settingsPage(p, http.StatusBadRequest, func(f *render.PortalSettingsForm) { f.AccountantEmail = email }, "accountant", field, words, "")
	}) {
		return
	}
	if email == "" {
		settingsSaved(p, "contador-sem")
		return
	}
	settingsSaved(p, "contador")
}

// portalSendPackage: POST /portal/settings/accountant/send e-mails this
// month's package, as it stands, to the accountant's address now (a
// second send within the same minute is the first).
func (s *Portal) portalSendPackage(p *portalRequest) {
	prof, err := p.db.UnitProfile(p.ctx, p.unit.ID)
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	if prof.AccountantEmail == "" {
		s.settingsPage(p, http.StatusBadRequest, nil, "accountant", "accountant-email", "informe e salve o e-mail do contador antes de enviar o pacote.", "")
		return
	}
	now := p.db.Now()
	first := store.Today(now).FirstOfMonth()
	dedupe := accounting.PackageMail + ":" + p.unit.Token + ":" + first.Format("2006-01") + ":now:" + now.UTC().Format("2006-01-02T15:04")
	if err := accounting.MailPackage(p.ctx, p.db, s.Invoices, p.unit, first, prof.AccountantEmail, dedupe); err != nil {
		s.portalFailed(p, err)
		return
	}
	settingsSaved(p, "pacote")
}

// portalSettingsEnvironment: POST /portal/settings/environment. To
// produção it takes two sends: the first asks the state's SEFAZ for its
// production service's status (refused, naming what is missing, for a
// unit not ready) and shows it with a confirmation; the confirmation
// (confirm=1) switches, as `fincom unit set --fiscal-environment` does.
// Back to homologação it switches at once.
func (s *Portal) portalSettingsEnvironment(p *portalRequest) {
	env := p.r.PostFormValue("environment")
	again := func(field, words string) {
		s.settingsPage(p, http.StatusBadRequest, nil, "environment", field, words, "")
	}
	if env == store.Producao && p.r.PostFormValue("confirm") != "1" {
		st, err := settings.AskProduction(p.ctx, p.db, s.Invoices, p.unit.Token)
		var fe settings.FieldError
		if errors.As(err, &fe) {
			field, words := settingsRefusal(err)
			again(field, words)
			return
		}
		s.settingsPage(p, http.StatusOK, func(f *render.PortalSettingsForm) { f.SEFAZ = sefazAnswer(st, err) }, "environment", "", "", "")
		return
	}
	_, _, err := settings.Set(p.ctx, p.db, p.unit.Token, settings.Profile{Environment: &env}, s.Invoices.Keyring)
	if s.formRefused(p, err, settingsRefusal, again) {
		return
	}
	settingsSaved(p, env)
}

// sefazAnswer is SEFAZ's answer to the status asked, as the owner reads
// it: up (107) or not, its code and words, or why it did not answer.
func sefazAnswer(st sefaz.Status, err error) *render.PortalSEFAZ {
	if err != nil {
		return &render.PortalSEFAZ{Failed: "A SEFAZ não respondeu (" + err.Error() + "). Tente de novo em instantes: a unidade continua em homologação."}
	}
	return &render.PortalSEFAZ{Authorizer: st.Authorizer, Code: st.Code, Reason: st.Reason, Up: st.Code == 107}
}

// portalSettingsContingency: POST /portal/settings/contingency sets how
// the unit's NF-e are issued while its state's SEFAZ is down, as `fincom
// unit set --fiscal-contingency` does.
func (s *Portal) portalSettingsContingency(p *portalRequest) {
	mode := p.r.PostFormValue("contingency")
	_, _, err := settings.Set(p.ctx, p.db, p.unit.Token, settings.Profile{Contingency: &mode}, s.Invoices.Keyring)
	if s.formRefused(p, err, settingsRefusal, func(field, words string) {
		s.settingsPage(p, http.StatusBadRequest, nil, "environment", field, words, "")
	}) {
		return
	}
	settingsSaved(p, "contingencia")
}

// parseStamp reads a stored RFC 3339 time; the zero time when it is not
// one.
func parseStamp(v string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, v)
	return t
}

// portalSettingsPSP: POST /portal/settings/psp connects the unit to its
// PSP (or, with remove=1, disconnects it), as `fincom unit psp` does:
// the connection is tried at once and the PSP's answer shown; a blank
// secret, or no certificate file, keeps the stored one.
func (s *Portal) portalSettingsPSP(p *portalRequest) {
	v := func(k string) string { return strings.TrimSpace(p.r.PostFormValue(k)) }
	typed := render.PortalSettingsForm{BaseURL: v("base-url"), TokenURL: v("token-url"), ClientID: v("client-id"), PSPPixKey: v("psp-pix-key")}
	again := func(field, words string) {
		s.settingsPage(p, http.StatusBadRequest, func(f *render.PortalSettingsForm) {
			f.BaseURL, f.TokenURL, f.ClientID, f.PSPPixKey = typed.BaseURL, typed.TokenURL, typed.ClientID, typed.PSPPixKey
		}, "psp", field, words, "")
	}
	if v("remove") == "1" {
		if err := settings.DisconnectPSP(p.ctx, p.db, p.unit); s.formRefused(p, err, settingsRefusal, again) {
			return
		}
		settingsSaved(p, "psp-removido")
		return
	}
	var pfx []byte
	if f, _, err := p.r.FormFile("psp-pfx"); err == nil {
		pfx, err = io.ReadAll(io.LimitReader(f, maxPFX+1))
		f.Close()
		if err != nil || len(pfx) > maxPFX {
			again("psp-pfx", "o arquivo não é um certificado A1 (.pfx ou .p12) com a sua chave privada.")
			return
		}
	}
	var roots *x509.CertPool
	if s.Billing != nil && s.Billing.PSPs != nil {
		roots = s.Billing.PSPs.Roots
	}
	_, err := settings.ConnectPSP(p.ctx, p.db, p.unit, s.Invoices.Keyring, roots, settings.PSPConnection{BaseURL: typed.BaseURL, TokenURL: typed.TokenURL,
		ClientID: typed.ClientID, Secret: p.r.PostFormValue("client-secret"), PixKey: typed.PSPPixKey, PFX: pfx, Password: p.r.PostFormValue("psp-password"),
		PublicURL: s.PublicURL})
	if errors.Is(err, settings.ErrPSPWebhook) {
		// Connected all the same: the page says what the PSP refused.
		field, words := settingsRefusal(err)
		s.settingsPage(p, http.StatusOK, nil, "psp", field, "", "PSP conectado. Atenção: "+words)
		return
	}
	if s.formRefused(p, err, settingsRefusal, again) {
		return
	}
	settingsSaved(p, "psp")
}

// peopleOf are the people with a role on the unit, by name.
func (s *Portal) peopleOf(p *portalRequest) ([]render.PortalPerson, error) {
	users, err := p.db.Users(p.ctx)
	if err != nil {
		return nil, err
	}
	grants, err := p.db.DomainGrants(p.ctx)
	if err != nil {
		return nil, err
	}
	var out []render.PortalPerson
	for _, u := range users {
		g := grants[u.ID]
		role := g.On(p.unit.ID)
		if role == "" {
			continue
		}
		person := render.PortalPerson{Name: u.Name, Email: u.Email, Role: string(role), RoleName: roleName(role), Where: "nesta unidade"}
		for _, one := range g {
			if one.AllUnits() && one.Role == role {
				person.Where = "em todas as unidades"
			}
		}
		out = append(out, person)
	}
	return out, nil
}

// portalInvite: POST /portal/settings/people gives a person a role on
// the unit (on every unit when the owner owns every unit and asks so),
// making the user when the domain has none of the e-mail, and e-mails
// the invitation: a sign-in link, through the outbox.
func (s *Portal) portalInvite(p *portalRequest) {
	name, email := strings.TrimSpace(p.r.PostFormValue("name")), strings.TrimSpace(p.r.PostFormValue("email"))
	role := store.Role(p.r.PostFormValue("role"))
	unitID, where := p.unit.ID, "na unidade "+p.unit.Name
	if p.r.PostFormValue("every_unit") == "1" && p.grants.OwnerOfAll() {
		unitID, where = 0, "em todas as unidades"
	}
	u, err := settings.Invite(p.ctx, p.db, name, email, role, unitID)
	if s.formRefused(p, err, settingsRefusal, func(field, words string) {
		s.settingsPage(p, http.StatusBadRequest, func(f *render.PortalSettingsForm) { f.PersonName, f.PersonEmail = name, email }, "people", field, words, "")
	}) {
		return
	}
	extra := p.session.User.Name + " convidou você para o fincom de " + p.unit.Name + ", como " + roleName(role) + " " + where + "."
	_, err = p.db.RequestLoginLink(p.ctx, u.Email, func(user store.User, link string) *store.Notice {
		subject, body, mailErr := s.Render.Mail("portal_invite", render.MailData{Seller: p.unit.Name, Customer: user.Name, Extra: extra,
			LoginURL: LoginURL(s.PublicURL, store.SealedMark)})
		if mailErr != nil {
			return nil
		}
		return &store.Notice{Kind: "portal_invite", To: user.Email, Subject: subject, Body: body, Sealed: s.LinkKeys.Seal([]byte(url.QueryEscape(link)))}
	})
	notice := "Convite enviado para " + u.Email + ": " + roleName(role) + " " + where + "."
	if errors.Is(err, store.ErrTooManyLinks) {
		notice = u.Name + " recebeu o papel; o convite não foi enviado agora (links demais pedidos em pouco tempo): peça que entre pelo portal com o e-mail."
	} else if err != nil {
		s.portalFailed(p, err)
		return
	}
	s.settingsPage(p, http.StatusOK, nil, "people", "", "", notice)
}

// portalPersonRole: POST /portal/settings/people/role changes a person's
// role on the unit, or ("none") takes it away; the domain keeps an owner
// of every unit.
func (s *Portal) portalPersonRole(p *portalRequest) {
	role := store.Role(p.r.PostFormValue("role"))
	if role == "none" {
		role = ""
	}
	_, err := settings.SetRole(p.ctx, p.db, p.r.PostFormValue("email"), role, p.unit.ID)
	if s.formRefused(p, err, settingsRefusal, func(field, words string) {
		s.settingsPage(p, http.StatusBadRequest, nil, "people", "person-"+field, words, "")
	}) {
		return
	}
	settingsSaved(p, "papel")
}
