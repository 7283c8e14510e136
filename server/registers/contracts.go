package registers

import (
	"fincom/server/problem"
	"fincom/store"
)

// A contract's refusals, in the API's words (/insert_contract).
var (
	ErrRecurrenceType = problem.New(problem.Invalid, "Invalid recurrence_type. Use unique, monthly or yearly.")
	ErrContractStatus = problem.New(problem.Invalid, "Invalid status. Use draft, active, expired or cancelled.")
	ErrContractDates  = problem.New(problem.Invalid, "Invalid validity dates. Use YYYY-MM-DD, the end not before the start.")
)

// CheckContract validates a contract as it will be stored (its required
// fields are the caller's to ask for): a known recurrence and status, and
// a validity that does not end before it starts.
func CheckContract(f *store.ContractFields) error {
	switch {
	case f.RecurrenceType != "" && f.RecurrenceType != "unique" && f.RecurrenceType != "monthly" && f.RecurrenceType != "yearly":
		return ErrRecurrenceType
	case !store.ContractStatuses[f.Status]:
		return ErrContractStatus
	case f.ValidityEnd != "" && f.ValidityEnd < f.ValidityStart:
		return ErrContractDates
	}
	return nil
}
