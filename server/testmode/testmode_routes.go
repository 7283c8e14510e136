package testmode

import (
	"fincom/server/access"
	"fincom/server/billing"
	"fincom/server/fiscal/localauth"
	"fincom/server/web"
)

import "fincom/store"

// TestRoutes exist only in test mode (404 otherwise); most act on the
// domain of the access token.
func (s *Mode) TestRoutes() []web.Route {
	return []web.Route{
		{Path: "/_test/clock", Do: web.Handle(s.testClock), Auth: web.AuthDomain, Texts: web.TextsDefault, Errs: web.Answers(errClockRequest, errClockJump),
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "advance": "P1D"}`, Tag: web.TagTestMode, Summary: "Set or advance the domain's clock; advancing runs the jobs that fall due on the way.", Desc: docTestClock, Resp: clockAnswer{}}},
		{Path: "/_test/outbox", Do: web.Plain(s.testOutbox), Auth: web.AuthDomain, Texts: web.TextsDefault,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b"}`, Tag: web.TagTestMode, Summary: "The e-mails queued and sent, without consuming them.", Resp: []store.Mail{}}},
		{Path: "/_test/job_runs", Do: web.Plain(s.testJobRuns), Auth: web.AuthDomain, Texts: web.TextsDefault,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b"}`, Tag: web.TagTestMode, Summary: "The scheduled jobs' runs and what each created.", Resp: []store.JobRun{}}},
		{Path: "/_test/faults", Do: web.Handle(s.testFaults), Auth: web.AuthDomain, Texts: web.TextsDefault, Errs: web.Answers(errFaultRule),
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "rules": [{"route": "/get_contacts", "probability": 0.1, "status": 503, "text": "Service unavailable"}]}`, Tag: web.TagTestMode, Summary: "Set fault rules: by route, a probability of a fixed error or added latency.", Resp: faultsRequest{}}},
		{Path: "/_test/journal", Do: web.Plain(s.testJournal), Auth: web.AuthDomain, Texts: web.TextsDefault,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b"}`, Tag: web.TagTestMode, Summary: "The domain's last requests with their answers.", Resp: []journalEntry{}}},
		{Path: "/_test/webhooks", Do: web.Plain(s.testWebhooks), Auth: web.AuthDomain, Texts: web.TextsDefault,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b"}`, Tag: web.TagTestMode, Summary: "Every webhook delivery of the domain, with payloads.", Resp: []store.Delivery{}}},
		{Path: "/_test/documents", Do: web.Plain(s.testDocuments), Auth: web.AuthDomain, Texts: web.TextsDefault,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b"}`, Tag: web.TagTestMode, Summary: "The generated documents: boletos, BR Codes, invoice keys and XML.", Resp: []store.Document{}}},
		{Path: "/_test/snapshot", Do: web.Handle(s.testSnapshot), Auth: web.AuthDomain, Texts: web.TextsDefault, Errs: web.ErrMap{{store.ErrBadSnapshot, errSnapshot}},
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "name": "antes-do-pagamento"}`, Tag: web.TagTestMode, Summary: "Save the domain's current state under a name.", Resp: web.WithMessage{Data: map[string]string{}}}},
		{Path: "/_test/authority", Do: web.Handle(s.testAuthority), Auth: web.AuthDomain, Texts: web.TextsDefault, Errs: web.Answers(errAuthorityMode),
			Doc: web.Doc{Tag: web.TagTestMode, Summary: "Make the domain's local tax authorities authorize, reject, deny, delay, drop the next reply, be unreachable or go offline.", Desc: docTestAuthority, Resp: localauth.Mode{},
				Example:     `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "mode": "reject", "code": 778}`,
				RespExample: `{"success": true, "data": {"mode": "reject", "code": 778}}`}},
		{Path: "/_test/authority_log", Do: web.Plain(s.testAuthorityLog), Auth: web.AuthDomain, Texts: web.TextsDefault,
			Doc: web.Doc{Tag: web.TagTestMode, Summary: "The messages the domain's local tax authorities received, in order.", Desc: docTestAuthorityLog, Resp: []localauth.Message{},
				Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b"}`,
				RespExample: `{"success": true, "data": [{"service": "NFeAutorizacao4", "message": "enviNFe", "key": "35261111222333000181550010000000011369774324", "code": "no reply"}, ` +
					`{"service": "NFeConsultaProtocolo4", "message": "consSitNFe", "key": "35261111222333000181550010000000011369774324", "code": "100"}]}`}},
		{Path: "/_test/psp", Do: web.Handle(s.testPSP), Auth: web.AuthDomain, Texts: web.TextsDefault, Errs: web.Answers(errPSPMode),
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "mode": "online", "drop_webhooks": 1}`, Tag: web.TagTestMode, Summary: "Make the domain's local PSP answer, answer slowly or go offline, lose its next webhooks, refuse refunds.", Desc: docTestPSP, Resp: pspMode{}}},
		{Path: "/_test/pix_automatico", Do: web.Handle(s.testPixAutomatico), Texts: web.TextsContract, Write: true, Area: access.Sales,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000016", "decision": "approve"}`, Tag: web.TagTestMode, Summary: "The payer approves or rejects a contract's PIX automático recurrence at the domain's local PSP.", Desc: docTestPixAutomatico, Resp: web.WithMessage{Data: store.PixRecurrence{}}}},
		{Path: "/_test/psp_poll", Do: web.Plain(s.testPSPPoll), Auth: web.AuthDomain, Texts: web.TextsDefault,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b"}`, Tag: web.TagTestMode, Summary: "Run the domain's PSP poll now: payments whose webhook was lost are applied, refunds followed.", Resp: web.WithMessage{Data: map[string]string{}}}},
		{Path: "/_test/refuse_charge", Do: web.Handle(s.testRefuseCharge), Texts: web.TextsDefault, Errs: web.OrderErrs, Write: true, Area: access.Charges,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000023", "reason": "Título recusado pelo banco (código 03)"}`, Tag: web.TagTestMode, Summary: "Refuse an order's open charge, as a card issuer would.", Resp: web.Done}},
		{Path: "/_test/reset", Do: web.Handle(s.testReset), Auth: web.AuthDomain, Texts: web.TextsDefault, Errs: web.ErrMap{{store.ErrBadSnapshot, errSnapshot}},
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "name": "antes-do-pagamento"}`, Tag: web.TagTestMode, Summary: "Reset the domain to a named snapshot, or to empty (units, tokens and users kept).", Resp: web.WithMessage{Data: map[string]string{}}}},
		{Path: "/_test/pay_charge", Do: web.Handle(s.testPayCharge), Texts: web.TextsDefault, Errs: append(web.Answers(web.ErrInvalidValue), web.ErrMap{{store.ErrNotFound, store.ErrNothingToPay}}...), Write: true, Area: access.Charges,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000024", "amount": "1500.00"}`, Tag: web.TagTestMode, Summary: "Pay an order's charge: in full, partial, over, or late with fine and interest.", Desc: docTestPayCharge, Resp: web.WithMessage{Data: store.Payment{}}}},
		{Path: "/_test/pay_pix", Do: web.Handle(s.testPayPix), Texts: web.TextsDefault, Errs: web.ErrMap{{store.ErrNotFound, store.ErrNothingToPay}}, Write: true, Area: access.Charges,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000025"}`, Tag: web.TagTestMode, Summary: "Pay an order's PIX charge at the domain's local PSP: any amount, the webhook twice or lost.", Desc: docTestPayPix, Resp: web.WithMessage{Data: billing.TestPixPayment{}}}},
		{Path: "/_test/bank_return", Do: web.Handle(s.testBankReturn), Texts: web.TextsDefault, Errs: web.ErrMap{{store.ErrNotFound, store.ErrNothingToPay}}, Write: true, Area: access.Charges,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000026"}`, Tag: web.TagTestMode, Summary: "The CNAB 240 return file the simulated bank sends when an order's boleto is paid.", Desc: docTestBankReturn, Raw: "text/plain"}},
		{Path: "/_test/overdue_charge", Do: web.Handle(s.testOverdueCharge), Texts: web.TextsDefault, Errs: web.OrderErrs, Write: true, Area: access.Charges,
			Doc: web.Doc{Example: `{"access_token": "fca_acme_3b8e1f0c2d4a6e8b", "unit_token": "fcu_acme_7d2c9a41e0b35f68", "id_token": "00000000-0000-4000-9000-000000000027"}`, Tag: web.TagTestMode, Summary: "Make an order's open charges overdue now.", Resp: web.WithMessage{Data: map[string]int{}}}},
		{Path: "/_test/domains", Do: web.Handle(s.testDomains), Auth: web.AuthPublic, Texts: web.TextsDefault, Errs: append(web.Answers(errInvalidLabel), web.Answers(errSnapshot, web.TextsDefault.Invalid)...),
			Doc: web.Doc{Example: `{"label": "ci-pedidos"}`, Tag: web.TagTestMode, Summary: "Create a throw-away domain with one unit (optionally from another domain's snapshot); answers its tokens.", Resp: testDomain{}}},
	}
}
