package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// The one-time keys of the portal's forms that make a record (form_keys):
// a form sent again finds the record its key made and makes nothing
// twice.

// InsertSalesOrderOnce is InsertSalesOrder for a form sent with a
// one-time key (the portal's new order): the first send makes the order
// and records the key with it, in one transaction; a send again of the
// same key makes nothing and answers the order it made (made false).
func (db *DB) InsertSalesOrderOnce(ctx context.Context, unitID int64, formKey string, f SalesOrderFields) (token, code string, made bool, err error) {
	if formKey == "" {
		token, code, err = db.InsertSalesOrder(ctx, unitID, f)
		return token, code, err == nil, err
	}
	fresh := db.newToken(ctx)
	err = db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		var found bool
		if token, found, err = formKeyRecord(ctx, tx, unitID, formKey); err != nil {
			return err
		}
		if found {
			return tx.QueryRowContext(ctx, `SELECT cod_orders FROM sales_orders WHERE token = ? AND unit_id = ?`, token, unitID).Scan(&code)
		}
		refs, err := resolveOrderRefs(ctx, tx, unitID, f)
		if err != nil {
			return err
		}
		if code, err = db.insertOrder(ctx, tx, unitID, fresh, f, refs, sql.NullInt64{}, "", now); err != nil {
			return err
		}
		token, made = fresh, true
		return keepFormKey(ctx, tx, unitID, formKey, fresh, now)
	})
	if err != nil {
		return "", "", false, fmt.Errorf("insert sales order: %w", err)
	}
	return token, code, made, nil
}

// InsertEntryOnce is InsertEntry for a form sent with a one-time key (the
// portal's new bill or income): the first send makes the entry and
// records the key with it, in one transaction; a send again of the same
// key makes nothing and answers the entry it made (made false).
func (db *DB) InsertEntryOnce(ctx context.Context, unitID int64, formKey string, f EntryFields, files []NewFile) (token string, made bool, err error) {
	fresh := db.newToken(ctx)
	token, made, err = db.once(ctx, unitID, formKey, func(ctx context.Context, tx *sql.Tx, now time.Time) (string, error) {
		return fresh, db.insertEntry(ctx, tx, unitID, fresh, f, files, "", now)
	})
	if err != nil {
		return "", false, fmt.Errorf("insert entry: %w", err)
	}
	return token, made, nil
}

// InsertEntryGroupOnce makes a group of entries (instalments) in one
// transaction, the first with the attachments, each numbered of the
// group and sharing a group token; it answers the first's token; with a
// form's one-time key, as InsertEntryOnce.
func (db *DB) InsertEntryGroupOnce(ctx context.Context, unitID int64, formKey string, group []EntryFields, files []NewFile) (token string, made bool, err error) {
	first := db.newToken(ctx)
	groupToken := db.id()
	token, made, err = db.once(ctx, unitID, formKey, func(ctx context.Context, tx *sql.Tx, now time.Time) (string, error) {
		for i, f := range group {
			entry := first
			if i > 0 {
				entry = db.id()
			}
			var attached []NewFile
			if i == 0 {
				attached = files
			}
			if err := db.insertEntry(ctx, tx, unitID, entry, f, attached, "", now); err != nil {
				return "", err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE entries SET group_token = ?, installment = ?, installments = ? WHERE unit_id = ? AND token = ?`,
				groupToken, i+1, len(group), unitID, entry); err != nil {
				return "", err
			}
		}
		return first, nil
	})
	if err != nil {
		return "", false, fmt.Errorf("insert entry group: %w", err)
	}
	return token, made, nil
}

// once makes one record with a form's one-time key, in one transaction:
// a key already spent answers the record it made (made false); otherwise
// insert makes the record, answering its token, and the key is kept with
// it. Without a key (a script's send) insert runs as it is.
func (db *DB) once(ctx context.Context, unitID int64, key string, insert func(ctx context.Context, tx *sql.Tx, now time.Time) (string, error)) (token string, made bool, err error) {
	err = db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		if key != "" {
			var found bool
			if token, found, err = formKeyRecord(ctx, tx, unitID, key); err != nil || found {
				return err
			}
		}
		if token, err = insert(ctx, tx, now); err != nil {
			return err
		}
		made = true
		if key == "" {
			return nil
		}
		return keepFormKey(ctx, tx, unitID, key, token, now)
	})
	return token, made, err
}

// InsertContactOnce is InsertContact for a form sent with a one-time key
// (the portal's new contact), as InsertEntryOnce.
func (db *DB) InsertContactOnce(ctx context.Context, unitID int64, formKey string, f ContactFields) (string, bool, error) {
	fresh := db.newToken(ctx)
	token, made, err := db.once(ctx, unitID, formKey, func(ctx context.Context, tx *sql.Tx, now time.Time) (string, error) {
		return fresh, db.insertContact(ctx, tx, unitID, fresh, f, now)
	})
	if err != nil {
		return "", false, fmt.Errorf("insert contact: %w", err)
	}
	return token, made, nil
}

// InsertProductOnce is InsertProduct for a form sent with a one-time key
// (the portal's new product), as InsertEntryOnce.
func (db *DB) InsertProductOnce(ctx context.Context, unitID int64, formKey string, f ProductFields) (string, bool, error) {
	fresh := db.newToken(ctx)
	token, made, err := db.once(ctx, unitID, formKey, func(ctx context.Context, tx *sql.Tx, now time.Time) (string, error) {
		return fresh, insertProduct(ctx, tx, unitID, fresh, f, now)
	})
	if err != nil {
		return "", false, fmt.Errorf("insert product: %w", err)
	}
	return token, made, nil
}

// InsertContractOnce is InsertContract (without files or an order) for a
// form sent with a one-time key (the portal's new contract), as
// InsertEntryOnce.
func (db *DB) InsertContractOnce(ctx context.Context, unitID int64, formKey string, f ContractFields) (string, bool, error) {
	fresh := db.newToken(ctx)
	token, made, err := db.once(ctx, unitID, formKey, func(ctx context.Context, tx *sql.Tx, now time.Time) (string, error) {
		_, err := db.insertContract(ctx, tx, unitID, fresh, f, nil, nil, now)
		return fresh, err
	})
	if err != nil {
		return "", false, wrap("insert contract", err)
	}
	return token, made, nil
}

// SpendFormKey records a form's one-time key for what it does (record:
// a word of the caller's) and reports whether it was fresh; a form whose
// key was spent (a reload, a double click, back and resend) is not done
// again. Used where the form's effect is not one record's insert (a batch
// of reminders, an access token shown once): the key is spent first, so
// a failure after it leaves the form to be drawn anew, never done twice.
func (db *DB) SpendFormKey(ctx context.Context, unitID int64, key, record string) (fresh bool, err error) {
	err = db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		if _, found, err := formKeyRecord(ctx, tx, unitID, key); err != nil || found {
			return err
		}
		fresh = true
		return keepFormKey(ctx, tx, unitID, key, record, now)
	})
	if err != nil {
		return false, fmt.Errorf("spend form key: %w", err)
	}
	return fresh, nil
}

// formKeyRecord answers the record a form's one-time key made in the
// unit, if it made one.
func formKeyRecord(ctx context.Context, tx *sql.Tx, unitID int64, key string) (string, bool, error) {
	var record string
	err := tx.QueryRowContext(ctx, `SELECT record FROM form_keys WHERE key = ? AND unit_id = ?`, key, unitID).Scan(&record)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return record, err == nil, err
}

// keepFormKey records the record a form's one-time key made.
func keepFormKey(ctx context.Context, tx *sql.Tx, unitID int64, key, record string, now time.Time) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO form_keys (key, unit_id, record, created_at) VALUES (?, ?, ?, ?)`, key, unitID, record, timestamp(now))
	return err
}
