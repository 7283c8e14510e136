package portal

import (
	"fincom/server/billing"
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
