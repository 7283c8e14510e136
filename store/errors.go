package store

import (
	"errors"
	"fmt"

	"fincom/server/problem"
)

// The store's errors, all of them. The facts of the data (not found,
// duplicate, ...) are answered in each route's words (its Errs map, or
// web's sharedErrors); the refusals a write meets in the state of the
// records are declared here once as problems, with the status and text
// the API and the portal answer; the CLI prints them.
var (
	// ErrNotFound: a record does not exist in the caller's scope (another
	// unit's or domain's record is "not found" too).
	ErrNotFound = errors.New("not found")
	// ErrDuplicate: a UNIQUE constraint refused a write.
	ErrDuplicate = errors.New("duplicate")
	// ErrUnauthorized: an unknown or revoked access token.
	ErrUnauthorized = errors.New("unauthorized")
	// ErrUnitNotFound: the unit token is not of the domain.
	ErrUnitNotFound = errors.New("unit not found")
	// ErrInvalidReference: a write names a related record (bank, contact,
	// group, ...) that does not exist in scope, or is inactive.
	ErrInvalidReference = errors.New("invalid reference")
	// ErrScreeningUnavailable: the screening named is not the unit's, or
	// not pending any more.
	ErrScreeningUnavailable = errors.New("screening not found or already used")
	// ErrFileNotFound: a file named is not among the record's.
	ErrFileNotFound = errors.New("file not found")
	// ErrInvalidValue: an amount outside what a record takes.
	ErrInvalidValue = errors.New("invalid value")
	// ErrMoneyRange: an amount outside ±MaxMoney; ErrQuantityRange: a
	// quantity outside ±MaxQuantity.
	ErrMoneyRange    = errors.New("amount out of range")
	ErrQuantityRange = errors.New("quantity out of range")

	// Charges: impossible transitions.
	ErrOrderDisabled    = problem.New(problem.Conflict, "The sales order is disabled; enable it before charging.")
	ErrNothingToCancel  = problem.New(problem.Conflict, "There is no open charge to cancel.")
	ErrNothingToPay     = problem.New(problem.Conflict, "There is no open charge to pay.")
	ErrAlreadyPaid      = problem.New(problem.Conflict, "The charge is paid and cannot be cancelled.")
	ErrNoChargeToResend = problem.New(problem.Conflict, "There is no open charge to send.")
	ErrNoPixAutomatico  = errors.New("order does not charge on PIX automático acceptance")
	ErrNothingToRefund  = problem.New(problem.Conflict, "The order has no PIX payment received at the unit's PSP left to refund.")
	ErrRefundTooLarge   = problem.New(problem.Unprocessable, "The amount is more than what is left to refund of the order's PIX payments.")
	ErrPixDecided       = problem.New(problem.Conflict, "This PIX is not held for a decision: it was decided already.")
	ErrPixKeepOver      = problem.New(problem.Unprocessable, "Only a PIX of less than its charge asks is kept towards it: accept or refund this one.")

	// Invoices.
	ErrCancelWindow = problem.New(problem.Conflict, "The invoice can no longer be cancelled: its cancellation window has closed.")
	ErrNoInvoice    = problem.New(problem.Conflict, "The order has no authorized invoice.")

	// Purchases and the NF-e inbox.
	ErrManifestRule      = errors.New("manifestation not allowed")
	ErrAlreadyManifested = errors.New("already manifested conclusively")

	// Inventory: an exit that would take a product's stock below zero.
	ErrInsufficientStock = problem.New(problem.Conflict, "Insufficient stock: this change would take the product's stock below zero.")

	// Domain files.
	ErrSchemaTooNew  = errors.New("schema is newer than this fincom")
	ErrForeignSchema = errors.New("foreign schema")
	ErrNoDomain      = errors.New("domain does not exist")
	ErrDomainExists  = errors.New("domain already exists")
	ErrInUse         = errors.New("domain in use")
	ErrBadName       = errors.New("invalid domain name: use 1 to 63 lower-case letters, digits and hyphens, starting with a letter or digit")
	ErrBadSnapshot   = errors.New("unknown or invalid snapshot name")

	// Backups.
	ErrBackupInDataDir = errors.New("a backup may not be written inside the data directory (but in its backups/ folder): it could replace a live domain or the lock")
	ErrBackupExists    = errors.New("the backup file exists; give --force to replace it")
)

// wrap gives an error leaving the store the operation it came from
// ("insert contact: …"), keeping it a sentinel for errors.Is; nil stays
// nil.
func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", op, err)
}
