-- An operator switches a unit's NF-e to the contingency authorizer of
-- its state (SVC) while the state's own is down, or to EPEC when SVC is
-- down too, and back; since when is printed on the notes issued so
-- (dhCont).
ALTER TABLE units ADD COLUMN fiscal_contingency TEXT NOT NULL DEFAULT 'off'
	CHECK (fiscal_contingency IN ('off', 'svc', 'epec'));
ALTER TABLE units ADD COLUMN fiscal_contingency_since TEXT;
