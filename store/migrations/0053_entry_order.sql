-- The sales order whose charge's payment booked an income entry: on the
-- accrual basis the order itself is the revenue, in its own month, and
-- the entry its payment booked is not counted again.
ALTER TABLE entries ADD COLUMN sales_order_id INTEGER REFERENCES sales_orders(id);
