-- A queued sign-in e-mail keeps its link sealed with the server's key
-- (outbox.sealed); its body holds only a mark where the link goes, so no
-- copy of a domain file holds a usable link (TestLoginLinkSealedAtRest).
-- Sign-in e-mails queued before this hold their link in clear: they are
-- emptied, and those not yet sent given up (a link lives 15 minutes).
ALTER TABLE outbox ADD COLUMN sealed BLOB;
UPDATE outbox SET body = 'Link de acesso removido. Peça um novo em /portal/login.',
	status = CASE status WHEN 'pending' THEN 'failed' ELSE status END,
	last_error = CASE status WHEN 'pending' THEN 'sign-in link removed by migration 25' ELSE last_error END
	WHERE kind = 'portal_login';
