package billing

import (
	"context"

	"fincom/store"
)

// BillContracts runs the contract billing for day: each period of every
// recurring contract that Rules.ContractPeriods says is billable by then
// becomes a copy of the contract's sales order due on the period's due
// date (store.CopyContractOrders, one transaction: a period is billed
// once, and contracts past their end without auto_extend expire), and the
// charges of each order made are issued. A charge that fails leaves its
// order billed and uncharged: it is logged, and /generate_charge can be
// retried safely. It answers the orders made and how many contracts
// expired.
func (s *Service) BillContracts(ctx context.Context, db *store.DB, day store.Date) ([]store.BilledOrder, int, error) {
	billed, expired, err := db.CopyContractOrders(ctx, day)
	if err != nil {
		return nil, 0, err
	}
	for _, b := range billed {
		if err := s.IssueCharges(ctx, db, b.UnitID, b.Token); err != nil {
			s.Log.Error("contract billing charge", "domain", db.Name, "order", b.Code, "err", err)
		}
	}
	return billed, expired, nil
}
