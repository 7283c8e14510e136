package portal

import (
	"fincom/server/billing"
	"fincom/server/fiscal"
	"fincom/server/invoicing"
	"fincom/server/web"
	"fincom/store"
)

// portalWords are the Portuguese the portal shows for the refusals its
// order and entry actions meet (the API keeps the spec's texts): the
// first whose error it is. An outside party's own code and text still
// follow them.
var portalWords = refusals{
	{store.ErrOrderDisabled, "", "O pedido está desativado: ative-o antes de cobrar."},
	{store.ErrNothingToCancel, "", "Não há cobrança em aberto para cancelar."},
	{store.ErrAlreadyPaid, "", "A cobrança está paga e não pode ser cancelada."},
	{store.ErrNothingToRefund, "", "O pedido não tem pagamento PIX recebido no PSP a devolver."},
	{store.ErrRefundTooLarge, "", "O valor passa do que resta a devolver dos pagamentos PIX do pedido."},
	{store.ErrCancelWindow, "", "A nota não pode mais ser cancelada: o prazo de cancelamento terminou."},
	{store.ErrNoInvoice, "", "O pedido não tem nota fiscal autorizada."},
	{billing.ErrProviderRefused, "", "O banco recusou a cobrança."},
	{billing.ErrProviderDown, "", "O banco não respondeu. Tente de novo: a cobrança não será emitida duas vezes."},
	{invoicing.ErrAuthorityDown, "", "A autoridade fiscal não respondeu. Tente de novo: a nota não será emitida duas vezes."},
	{invoicing.ErrCorrectionText, "", "A correção precisa de 15 a 1.000 caracteres."},
	{invoicing.ErrNotCorrectable, "", "Só uma NF-e autorizada recebe carta de correção."},
	{invoicing.ErrTooManyCorrections, "", "A NF-e já tem as suas 20 cartas de correção."},
	{invoicing.ErrNotSubstitutable, "", "Só uma NFC-e autorizada é cancelada por substituição, por outra NFC-e autorizada da unidade."},
	{invoicing.ErrCancellationRefused, "", "A autoridade fiscal recusou o cancelamento."},
	{invoicing.ErrSubstitutionRefused, "", "A autoridade fiscal recusou o cancelamento por substituição."},
	{invoicing.ErrCorrectionRefused, "", "A autoridade fiscal recusou a carta de correção."},
	{invoicing.ErrCancellationUnsure, "", "O cancelamento foi enviado e a resposta da autoridade se perdeu: ele será confirmado quando ela responder, nunca registrado duas vezes."},
	{web.ErrCancelReason, "", "O motivo do cancelamento precisa de 15 a 255 caracteres."},
	{web.ErrInvalidPayDay, "", "Data de pagamento inválida."},
	{store.ErrLineNotOpen, "", "Esta linha do extrato já foi conciliada ou descartada."},
	{store.ErrAmountMismatch, "", "O valor ou o sentido do lançamento não é o da linha do extrato."},
	{store.ErrNothingToPay, "", "O pedido não tem cobrança em aberto a pagar."},
	{store.ErrLineOpen, "", "Esta linha do extrato está em aberto: não há o que desfazer."},
	{store.ErrLinePaidCharge, "", "Esta linha pagou uma cobrança: o pagamento não se desfaz aqui."},
	{store.ErrLineEffect, "", "Esta linha foi conciliada antes de o fincom guardar o que a conciliação mudou: altere o lançamento em Lançamentos."},
	{store.ErrNotFound, "", "Não encontrado nesta unidade."},
	{store.ErrInvalidReference, "", "Um item escolhido não existe nesta unidade ou está desativado: recarregue a página."},
	{web.ErrReconcileWhat, "", "Escolha com o que conciliar a linha."},
	{web.ErrTooLong, "", "Texto longo demais: até 255 caracteres."},
}

// fiscalWords say in Portuguese what an invoice lacks, by the field a
// fiscal.Problem names; a field not listed is said as the API says it
// (its name and message), its amounts in it.
var fiscalWords = map[string]string{
	"contact.register":           "o cliente precisa de um CPF ou CNPJ válido",
	"contact.address":            "falta o endereço do cliente (logradouro e número)",
	"contact.city":               "falta a cidade do cliente com o código do IBGE (edite o contato: CEP, cidade e UF)",
	"contact.zip_code":           "falta o CEP do cliente",
	"contact.state_registration": "o cliente contribuinte do ICMS precisa da inscrição estadual",
	"unit.cnpj":                  "a unidade precisa de um CNPJ válido",
	"unit.city_ibge":             "falta a cidade da unidade (código do IBGE; fincom unit set)",
	"unit.street":                "falta o logradouro da unidade (fincom unit set --street)",
	"unit.number":                "falta o número do endereço da unidade (fincom unit set --number)",
	"unit.district":              "falta o bairro da unidade (fincom unit set --district)",
	"unit.zip":                   "falta o CEP da unidade (fincom unit set --zip)",
	"unit.ie":                    "falta a inscrição estadual da unidade, ou ISENTO (fincom unit set --ie)",
	"unit.crt":                   "falta o regime tributário da unidade, CRT 1 a 4 (fincom unit set --crt)",
	"unit.icms_rate":             "o regime normal precisa da alíquota interna do ICMS (fincom unit set --icms-rate)",
	"unit.pis_rate":              "o regime normal precisa das alíquotas de PIS e COFINS (fincom unit set --pis-rate --cofins-rate)",
	"unit.csc":                   "a NFC-e precisa do CSC da unidade e do seu id (fincom unit set --csc-id --csc)",
	"unit.im":                    "falta a inscrição municipal da unidade",
	"pv.products":                "uma nota de produtos precisa de produtos no pedido",
	"nf.consumidor_final":        "um cliente que não contribui com o ICMS é consumidor final",
	"nf.local_destino":           "a NFC-e é uma venda dentro do estado ao consumidor final",
	"nf.presenca_comprador":      "a NFC-e é uma venda presencial ou com entrega em domicílio",
	"nf.freight_mode":            "a NFC-e não tem frete",
	"nf.service_cod":             "falta o item da lista de serviços (LC 116, como 01.07)",
	"nf.tax_iss_rate_percent":    "a alíquota do ISS vai de 2% a 5%",
	"service.ibs_cbs_operation":  "o serviço precisa do indicador da operação (cIndOp) no seu cadastro",
}

// problemWords is a fiscal problem as the portal says it.
func problemWords(p fiscal.Problem) string {
	if w, ok := fiscalWords[p.Field]; ok {
		return w
	}
	return p.Field + ": " + p.Message
}
