package portal

import (
	"fincom/server/billing"
	"fincom/server/fiscal"
	"fincom/server/invoicing"
	"fincom/server/sales"
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
	{billing.ErrProviderAnswer, "", "O banco respondeu algo que o fincom não pode aceitar (veja o detalhe abaixo). Tente de novo: a cobrança não será emitida duas vezes."},
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
	{sales.ErrNotifyEmail, "", "E-mail de aviso inválido."},
	{sales.ErrISSRate, "", "Alíquota do ISS de 2% a 5% (o piso e o teto da lei complementar 116), como 5 ou 2,5."},
	{sales.ErrMayNot, "", "Seu papel nesta unidade não permite este pedido, ou cobrá-lo ou emitir a sua nota: nada foi salvo."},
	{store.ErrPixDecided, "", "Este PIX não está mais retido: já foi decidido."},
	{store.ErrPixKeepOver, "", "Só um PIX menor que o valor da cobrança é guardado para ela: aceite-o ou devolva-o."},
	{store.ErrLineOpen, "", "Esta linha do extrato está em aberto: não há o que desfazer."},
	{store.ErrLineRestPaid, "", "Esta linha pagou parte de um lançamento cujo restante também foi pago: desfaça esse pagamento antes."},
	{billing.ErrNotABoleto, "", "Só um boleto em aberto, registrado num banco, ganha novo vencimento; outra cobrança se cancela e se gera de novo."},
	{billing.ErrDueDate, "", "Novo vencimento inválido: um dia de hoje até 5 anos à frente."},
	{store.ErrLinePartPaid, "", "Esta linha pagou parte de uma cobrança que depois foi paga por inteiro: desfaça esse pagamento antes."},
	{store.ErrLineItemTwice, "", "Um lançamento ou cobrança foi marcado duas vezes."},
	{store.ErrLineItemsSum, "", "Os itens marcados não somam o valor da linha: marque outros, ou lance a diferença numa categoria."},
	{store.ErrLineItemsMany, "", "Uma linha do extrato paga no máximo 50 itens de uma vez."},
	{store.ErrLineEffect, "", "Esta linha foi conciliada antes de o fincom guardar o que a conciliação mudou: altere o lançamento em Lançamentos."},
	{store.ErrNotFound, "", "Não encontrado nesta unidade."},
	{store.ErrInvalidReference, "", "Um item escolhido não existe nesta unidade ou está desativado: recarregue a página."},
	{web.ErrReconcileWhat, "", "Escolha com o que conciliar a linha."},
	{store.ErrNoAgreement, "", "A unidade não tem convênio de cobrança com o banco escolhido: um proprietário o cadastra em Configurações da unidade, Cobrança bancária."},
	{store.ErrNoChargeToResend, "", "Não há cobrança em aberto para reenviar."},
	{store.ErrInsufficientStock, "", "Estoque insuficiente: a operação deixaria o estoque do produto abaixo de zero."},
	{billing.ErrUnknownBank, "", "Banco do boleto desconhecido: escolha um banco da lista."},
	{billing.ErrUnknownProvider, "", "Meio de cobrança desconhecido."},
	{billing.ErrNoChargeEmail, "", "O pedido não tem e-mail de cobrança."},
	{billing.ErrNoPSP, "", "A unidade não está ligada a um PSP: um proprietário o conecta em Configurações da unidade, PSP."},
	{billing.ErrPSPGone, "", "A cobrança foi criada num PSP ao qual a unidade não está mais ligada: conecte-o de novo em Configurações da unidade, PSP, para cancelá-la lá."},
	{billing.ErrPSPDown, "", "O PSP não respondeu: a cobrança continua aberta lá e não foi cancelada. Tente de novo."},
	{billing.ErrPSPAnswer, "", "O PSP respondeu algo que o fincom não pode aceitar (veja o detalhe abaixo): a cobrança continua aberta lá e não foi cancelada."},
	{billing.ErrRefundPending, "", "O PSP não respondeu: a devolução está registrada e será pedida de novo na próxima consulta."},
	{billing.ErrRefundHeld, "", "O PSP respondeu a devolução com outro valor que o pedido: ela fica retida para alguém conferir com o PSP, e nada foi lançado."},
	{invoicing.ErrEPECRefused, "", "A autoridade fiscal recusou o EPEC."},
	{invoicing.ErrNoNFEmail, "", "O pedido não tem e-mail para a nota fiscal."},
	{invoicing.ErrNoCertificate, "", "A unidade não tem certificado digital para assinar as notas: um proprietário o instala em Configurações da unidade, Certificado digital A1."},
	{invoicing.ErrNoSecretsKey, "", "O servidor não tem a chave que abre o certificado da unidade (o operador o inicia com --secrets-key-file)."},
	{invoicing.ErrOfflinePending, "", "A nota foi emitida em contingência e aguarda a autorização da SEFAZ: cancele-a depois de autorizada."},
	{invoicing.ErrNotReplaceable, "", "Só uma NFS-e nacional autorizada é substituída por outra."},
	{invoicing.ErrReplacementRefused, "", "O sistema nacional da NFS-e recusou a substituição."},
	{invoicing.ErrReplacementUnsure, "", "A substituição foi enviada e a resposta do sistema nacional se perdeu: ela será consultada antes de qualquer novo envio, nunca emitida duas vezes."},
	{web.ErrSalesOrderNotFound, "", "Pedido não encontrado nesta unidade."},
	{invoicing.ErrEventNotSent, "", "O evento não foi enviado: o fincom não conseguiu montar uma mensagem que a autoridade aceite (veja o detalhe)."},
	{invoicing.ErrAuthorityAnswer, "", "A autoridade respondeu algo que o fincom não pode aceitar (veja o detalhe): nada mudou; tente de novo."},
	{invoicing.ErrNotSent, "", "A nota não foi enviada: o fincom não conseguiu montar um documento que a autoridade aceite (veja o detalhe). Tentar de novo, sozinho, não resolve."},
	{web.ErrInvalidValue, "", "Valor inválido."},
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
	"contact.neighborhood":       "falta o bairro do cliente (edite o contato)",
	"contact.state_registration": "o cliente contribuinte do ICMS precisa da inscrição estadual",
	"unit.cnpj":                  "a unidade precisa de um CNPJ válido (Configurações da unidade, Empresa e fiscal)",
	"unit.city_ibge":             "falta a cidade da unidade (Configurações da unidade, Empresa e fiscal)",
	"unit.street":                "falta o logradouro da unidade (Configurações da unidade, Empresa e fiscal)",
	"unit.number":                "falta o número do endereço da unidade (Configurações da unidade, Empresa e fiscal)",
	"unit.district":              "falta o bairro da unidade (Configurações da unidade, Empresa e fiscal)",
	"unit.zip":                   "falta o CEP da unidade (Configurações da unidade, Empresa e fiscal)",
	"unit.ie":                    "falta a inscrição estadual da unidade, ou ISENTO (Configurações da unidade, Empresa e fiscal)",
	"unit.crt":                   "falta o regime tributário da unidade (Configurações da unidade, Empresa e fiscal)",
	"unit.icms_rate":             "o regime normal precisa da alíquota interna do ICMS (Configurações da unidade, Empresa e fiscal)",
	"unit.pis_rate":              "o regime normal precisa das alíquotas de PIS e COFINS (Configurações da unidade, Empresa e fiscal)",
	"unit.csc":                   "a NFC-e precisa do CSC da unidade e do seu identificador (Configurações da unidade, Empresa e fiscal)",
	"unit.im":                    "falta a inscrição municipal da unidade (Configurações da unidade, Empresa e fiscal)",
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

// roleName is a role's name as the portal says it.
func roleName(role store.Role) string {
	switch role {
	case store.RoleOwner:
		return "Proprietário"
	case store.RoleFinance:
		return "Financeiro"
	case store.RoleSales:
		return "Vendas"
	case store.RoleAccountant:
		return "Contador (só leitura)"
	}
	return "Sem acesso"
}

// apiWords name the API's changing routes as the audit log says them, the
// route itself following in parentheses.
var apiWords = map[string]string{
	"/insert_expense": "Incluir despesa", "/update_expense": "Alterar despesa",
	"/cancel_entry_group": "Cancelar as parcelas em aberto", "/stop_entry_recurrence": "Parar a repetição de um lançamento",
	"/insert_expense_files": "Anexar arquivos à despesa", "/delete_expense_files": "Excluir arquivos da despesa",
	"/insert_income": "Incluir receita", "/update_income": "Alterar receita",
	"/insert_income_files": "Anexar arquivos à receita", "/delete_income_files": "Excluir arquivos da receita",
	"/insert_screening": "Incluir lançamento a triar", "/discard_screening": "Descartar lançamento a triar",
	"/insert_sales_order": "Incluir pedido de venda", "/enable_sales_order": "Reativar pedido de venda", "/disable_sales_order": "Desativar pedido de venda",
	"/generate_charge": "Gerar cobrança", "/cancel_charge": "Cancelar cobrança", "/refund_charge": "Devolver cobrança",
	"/settle_charge": "Baixar cobrança", "/resend_charge": "Reenviar cobrança", "/change_charge_due_date": "Prorrogar vencimento do boleto",
	"/export_remittance": "Gerar remessa ao banco", "/import_return": "Importar retorno do banco",
	"/import_ofx": "Importar extrato OFX", "/reconcile_statement_line": "Conciliar linha do extrato",
	"/generate_nf": "Emitir nota fiscal", "/cancel_nf": "Cancelar nota fiscal", "/replace_nf": "Substituir nota fiscal",
	"/send_danfe_xml":                      "Enviar DANFE e XML",
	"/set_purchase_order_active":           "Ativar ou desativar pedido de compra",
	"/insert_purchase_order_by_access_key": "Incluir pedido de compra pela chave de acesso",
	"/manifest_nfe":                        "Manifestar NF-e recebida", "/import_nfe": "Importar NF-e recebida",
	"/insert_contract": "Incluir contrato", "/update_contract": "Alterar contrato",
	"/enable_contract": "Reativar contrato", "/disable_contract": "Desativar contrato", "/delete_contract_files": "Excluir arquivos do contrato",
	"/insert_contract_template": "Incluir modelo de contrato", "/update_contract_template": "Alterar modelo de contrato",
	"/request_pix_automatico": "Pedir autorização de Pix Automático", "/accept_pix_automatico": "Aceitar Pix Automático",
	"/insert_webhook": "Incluir aviso a sistema", "/enable_webhook": "Reativar aviso a sistema", "/disable_webhook": "Desativar aviso a sistema",
	"/insert_crm": "Incluir registro de CRM", "/update_crm": "Alterar registro de CRM",
	"/enable_crm": "Reativar registro de CRM", "/disable_crm": "Desativar registro de CRM",
	"/insert_inventory_movement": "Incluir movimento de estoque", "/update_inventory_movement": "Alterar movimento de estoque",
	"/enable_inventory_movement": "Reativar movimento de estoque", "/disable_inventory_movement": "Desativar movimento de estoque",
	"/insert_product_or_service": "Incluir produto ou serviço", "/update_product_or_service": "Alterar produto ou serviço",
	"/enable_product_or_service": "Reativar produto ou serviço", "/disable_product_or_service": "Desativar produto ou serviço",
	"/insert_contact": "Incluir contato", "/update_contact": "Alterar contato",
	"/enable_contact": "Reativar contato", "/disable_contact": "Desativar contato",
	"/insert_category": "Incluir categoria", "/update_category": "Alterar categoria",
	"/enable_category": "Reativar categoria", "/disable_category": "Desativar categoria",
	"/insert_project": "Incluir projeto", "/update_project": "Alterar projeto",
	"/enable_project": "Reativar projeto", "/disable_project": "Desativar projeto",
	"/insert_bank_account": "Incluir conta bancária", "/update_bank_account": "Alterar conta bancária",
	"/enable_bank_account": "Reativar conta bancária", "/disable_bank_account": "Desativar conta bancária",
	"/_test/pix_automatico": "Modo de teste: simular Pix Automático", "/_test/refuse_charge": "Modo de teste: simular cobrança recusada",
	"/_test/pay_charge": "Modo de teste: simular pagamento", "/_test/pay_pix": "Modo de teste: simular pagamento por PIX",
	"/_test/bank_return": "Modo de teste: simular retorno do banco", "/_test/overdue_charge": "Modo de teste: simular cobrança vencida",
}

// APIWords names an API route as the audit log says it: its words, the
// route in parentheses; ok is false for a route that has none.
func APIWords(route string) (string, bool) {
	w, ok := apiWords[route]
	if !ok {
		return "API (" + route + ")", false
	}
	return w + " pela API (" + route + ")", true
}
