-- Contacts carry their state registration (inscrição estadual) and ICMS
-- contributor indicator, which an NF-e's recipient needs: indIEDest and
-- indFinal follow them (TestRecipientStateRegistration).
ALTER TABLE contacts ADD COLUMN state_registration TEXT;
ALTER TABLE contacts ADD COLUMN icms_contributor TEXT CHECK (icms_contributor IN ('1', '2', '9'));
