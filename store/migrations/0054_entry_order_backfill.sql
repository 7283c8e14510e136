-- Incomes a charge's payment booked before entries carried their order
-- get it now, so the accrual basis does not count such a sale twice (the
-- order and its payment). The payment's entry is the one with the order's
-- description, contact and unit, the charge's due date and the amount
-- paid; a person's entry that matches all of them records that same
-- payment.
UPDATE entries SET sales_order_id = (
	SELECT o.id FROM charges c JOIN sales_orders o ON o.id = c.order_id
	WHERE o.unit_id = entries.unit_id AND o.description = entries.description AND o.contact_id IS entries.contact_id
		AND c.status = 'PAID' AND c.due_date = entries.due_date AND c.paid_amount = entries.value
		AND o.revenue = 1
	ORDER BY c.id LIMIT 1)
WHERE type = 'in' AND sales_order_id IS NULL AND active = 1;
