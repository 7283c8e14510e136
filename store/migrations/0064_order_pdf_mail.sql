-- Whether a unit's charge e-mails carry the order's "Pedido de venda" PDF.
ALTER TABLE units ADD COLUMN order_pdf_mail INTEGER NOT NULL DEFAULT 0;
