-- Banco do Brasil's wallet variation ("variação da carteira"), which its
-- files carry beside the wallet; empty for the other banks.
ALTER TABLE bank_agreements ADD COLUMN variation TEXT NOT NULL DEFAULT '';
