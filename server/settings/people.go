package settings

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"fincom/server/problem"
	"fincom/server/registers"
	"fincom/store"
)

// The refusals of a unit's people, beside their fields.
var (
	ErrPersonName = problem.New(problem.Unprocessable, "the name has 1 to 120 characters")
	ErrPersonRole = problem.New(problem.Unprocessable, "use owner, finance, sales or accountant")
	ErrNoPerson   = problem.New(problem.Unprocessable, "no active user of the domain has this e-mail")
	ErrLastOwner  = problem.New(problem.Unprocessable, "the domain would be left without an owner of every unit: make another user one first")
)

// CheckPerson checks a person's name and e-mail as a user of the domain
// has them.
func CheckPerson(name, email string) error {
	if name == "" || utf8.RuneCountInString(name) > 120 {
		return refuse("name", ErrPersonName)
	}
	if len(email) > 254 || !registers.ValidEmail(email) {
		return refuse("email", ErrEmail)
	}
	return nil
}

// Invite gives a person a role on a unit (0: every unit): the domain's
// user of that e-mail, or a new user of that name and e-mail. The
// invitation itself (a sign-in link e-mailed) is the caller's.
func Invite(ctx context.Context, db *store.DB, name, email string, role store.Role, unitID int64) (store.User, error) {
	name, email = strings.TrimSpace(name), strings.TrimSpace(email)
	if err := CheckPerson(name, email); err != nil {
		return store.User{}, err
	}
	if _, ok := store.ParseRole(string(role)); !ok {
		return store.User{}, refuse("role", ErrPersonRole)
	}
	u, err := db.UserByEmail(ctx, email)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return db.CreateUserAs(ctx, name, email, role, unitID)
	case err != nil:
		return u, err
	}
	return u, setRole(ctx, db, u, role, unitID)
}

// SetRole gives the domain's user of email the role on a unit (0: every
// unit), or ("") takes its role there away; the domain keeps an owner of
// every unit.
func SetRole(ctx context.Context, db *store.DB, email string, role store.Role, unitID int64) (store.User, error) {
	if _, ok := store.ParseRole(string(role)); role != "" && !ok {
		return store.User{}, refuse("role", ErrPersonRole)
	}
	u, err := db.UserByEmail(ctx, strings.TrimSpace(email))
	if errors.Is(err, store.ErrNotFound) {
		return u, refuse("email", ErrNoPerson)
	}
	if err != nil {
		return u, err
	}
	return u, setRole(ctx, db, u, role, unitID)
}

func setRole(ctx context.Context, db *store.DB, u store.User, role store.Role, unitID int64) error {
	err := db.SetUserRole(ctx, u.ID, unitID, role)
	if errors.Is(err, store.ErrLastOwner) {
		return refuse("role", ErrLastOwner)
	}
	return err
}
