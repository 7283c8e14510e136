-- A recipient's manifestation is sent to the national environment (AN's
-- NFeRecepcaoEvento4) after it is recorded: registered with its protocol,
-- or refused with the authority's code and text; null while it waits (a
-- unit without a certificate keeps it waiting).
ALTER TABLE nfe_inbox ADD COLUMN manifestation_sent TEXT CHECK (manifestation_sent IN ('registered', 'refused'));
ALTER TABLE nfe_inbox ADD COLUMN manifestation_reply TEXT;
