-- How a confirmed payment met its charge: exact (the amount, by the due
-- date), partial (less than the amount), over (more, by the due date) or
-- late (after the due date, at least the amount). NULL until paid.
ALTER TABLE charges ADD COLUMN settlement TEXT CHECK (settlement IN ('exact', 'partial', 'over', 'late'));
-- Payments confirmed before this column existed: the same rule, on the
-- stored amounts (two-place decimal texts compare exactly as numbers at
-- these sizes) and on the UTC day of payment.
UPDATE charges SET settlement = CASE
	WHEN CAST(paid_amount AS REAL) < CAST(amount AS REAL) THEN 'partial'
	WHEN substr(paid_at, 1, 10) > due_date THEN 'late'
	WHEN CAST(paid_amount AS REAL) > CAST(amount AS REAL) THEN 'over'
	ELSE 'exact' END
WHERE status = 'PAID' AND paid_amount IS NOT NULL;
