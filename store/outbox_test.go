package store

import (
	"bytes"
	"context"
	"testing"
)

// TestSentMailDropsItsFiles: a pending message keeps its files for its
// retries; once sent, it keeps their names and sizes, not their bytes (a
// domain would otherwise hold a copy of every invoice it ever mailed).
func TestSentMailDropsItsFiles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, u := newUnit(t)
	doc := bytes.Repeat([]byte("<NFe/>"), 100)
	for i, tok := range []string{"mail-1", "mail-2"} {
		if _, err := db.w.ExecContext(ctx, `INSERT INTO outbox (id, token, unit_id, kind, to_addr, subject, body, status, next_try_at, created_at)
			VALUES (?, ?, ?, 'invoice_issued', 'a@b.example', 'Nota', 'Segue', 'pending', '2000-01-01T00:00:00Z', '2000-01-01T00:00:00Z')`, i+1, tok, u.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := db.w.ExecContext(ctx, `INSERT INTO outbox_attachments (outbox_id, position, name, content_type, size, data)
			VALUES (?, 0, 'nota.xml', 'application/xml', ?, ?)`, i+1, len(doc), doc); err != nil {
			t.Fatal(err)
		}
	}
	due, err := db.DueMail(ctx, 10)
	if err != nil || len(due) != 2 || len(due[0].Attachments) != 1 || !bytes.Equal(due[0].Attachments[0].Data, doc) {
		t.Fatalf("due %+v %v", due, err)
	}
	if err := db.MailSent(ctx, "mail-1"); err != nil {
		t.Fatal(err)
	}
	var kept int
	if err := db.r.QueryRowContext(ctx, `SELECT count(*) FROM outbox_attachments WHERE data IS NOT NULL`).Scan(&kept); err != nil || kept != 1 {
		t.Fatalf("%d files keep their bytes after one of two was sent (%v)", kept, err)
	}
	mails, err := db.Outbox(ctx, EveryUnit, 10)
	if err != nil || len(mails) != 2 {
		t.Fatal(mails, err)
	}
	// A unit's outbox is its own; no unit's is empty.
	if mails, err := db.Outbox(ctx, u.ID, 10); err != nil || len(mails) != 2 {
		t.Fatal(mails, err)
	}
	for _, unit := range []int64{0, u.ID + 1} {
		if mails, err := db.Outbox(ctx, unit, 10); err != nil || len(mails) != 0 {
			t.Fatalf("unit %d's outbox: %v %v", unit, mails, err)
		}
	}
	for _, m := range mails {
		if len(m.Attachments) != 1 || m.Attachments[0] != (AttachmentInfo{Name: "nota.xml", ContentType: "application/xml", Size: int64(len(doc))}) {
			t.Fatalf("%s lists %+v", m.Token, m.Attachments)
		}
	}
}
