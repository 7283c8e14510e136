// Command ogenflow runs the flow of oapiflow through the client ogen
// generates from testdata/openapi.json: a throw-away domain, a contact, a
// sales order, its charge, a simulated payment, and the income in
// /transactions. ogen's client validates every answer against the
// document as it decodes it.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"time"

	"fincomclients/ogen"
)

func main() {
	base := flag.String("base", "http://127.0.0.1:8080/api/v1", "fincom's API base URL")
	flag.Parse()
	if err := run(context.Background(), *base); err != nil {
		log.Fatalf("ogen flow: %v", err)
	}
	fmt.Println("ogen flow: ok")
}

// want answers the 200 variant of a response, or an error naming the
// other.
func want[T any](res any, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	ok, is := res.(*T)
	if !is {
		return nil, fmt.Errorf("answer %T %+v", res, res)
	}
	return ok, nil
}

func run(ctx context.Context, base string) error {
	c, err := ogen.NewClient(base)
	if err != nil {
		return err
	}
	d, err := want[ogen.TestDomainsOK](c.TestDomains(ctx, ogen.OptTestDomainsRequest{}))
	if err != nil {
		return fmt.Errorf("_test/domains: %w", err)
	}
	access, unit := d.Data.AccessToken, d.Data.UnitToken

	cats, err := want[ogen.GetCategoriesOK](c.GetCategories(ctx, &ogen.GetCategoriesReq{AccessToken: access, UnitToken: unit, Type: ogen.GetCategoriesReqTypeIn}))
	if err != nil || len(cats.Data) == 0 {
		return fmt.Errorf("get_categories: %v", err)
	}
	methods, err := want[ogen.ListPaymentsMethodOK](c.ListPaymentsMethod(ctx, &ogen.UnitAuth{AccessToken: access, UnitToken: unit}))
	if err != nil {
		return fmt.Errorf("list_payments_method: %w", err)
	}
	var boleto string
	for _, m := range methods.Data {
		if m.PaymentKey == ogen.PaymentMethodPaymentKeyBOLETO {
			boleto = m.Token.String()
		}
	}
	if boleto == "" {
		return fmt.Errorf("no BOLETO payment method")
	}

	contact, err := want[ogen.InsertContactOK](c.InsertContact(ctx, &ogen.InsertContactReq{AccessToken: access, UnitToken: unit,
		Type:         ogen.InsertContactReqTypeLegal,
		Register:     "11.222.333/0001-81",
		SocialReason: ogen.NewOptNilString("Beta Serviços S.A.")}))
	if err != nil {
		return fmt.Errorf("insert_contact: %w", err)
	}

	// São Paulo's today (no daylight saving since 2019), the server's.
	now := time.Now().In(time.FixedZone("-03", -3*3600))
	order, err := want[ogen.InsertSalesOrderOK](c.InsertSalesOrder(ctx, &ogen.InsertSalesOrderReq{AccessToken: access, UnitToken: unit,
		Pv: ogen.NewOptNilOrderPVInput(ogen.OrderPVInput{IDTokenContact: contact.Token, Description: "Consultoria",
			Value: ogen.NewStringAmountInput("150.00")}),
		Faturamento: ogen.NewOptNilOrderFaturamentoInput(ogen.OrderFaturamentoInput{IDTokenCategory: cats.Data[0].Token.String(),
			EstimatedPaymentDate: ogen.NewOptNilString(now.Format(time.DateOnly)), InAutomation: ogen.NewOptNilBool(true)}),
		Charge: ogen.NewOptNilOrderChargeInput(ogen.OrderChargeInput{PaymentType: boleto,
			ProviderBank: ogen.NewOptNilOrderChargeInputProviderBank(ogen.OrderChargeInputProviderBankProviderA)}),
	}))
	if err != nil {
		return fmt.Errorf("insert_sales_order: %w", err)
	}

	charge, err := want[ogen.GenerateChargeOK](c.GenerateCharge(ctx, &ogen.GenerateChargeReq{AccessToken: access, UnitToken: unit, IDToken: order.Data.ID}))
	if err != nil {
		return fmt.Errorf("generate_charge: %w", err)
	}
	if charge.Data.ChargeStatus != ogen.ChargeAnswerChargeStatusPENDING || len(charge.Data.Charges) != 1 || charge.Data.Charges[0].BoletoLine.IsNull() {
		return fmt.Errorf("generate_charge: %+v", charge.Data)
	}

	paid, err := want[ogen.TestPayChargeOK](c.TestPayCharge(ctx, &ogen.TestPayChargeReq{AccessToken: access, UnitToken: unit, IDToken: order.Data.ID}))
	if err != nil {
		return fmt.Errorf("_test/pay_charge: %w", err)
	}
	if paid.Data.ChargeStatus != ogen.PaymentChargeStatusPAID || paid.Data.PaidAmount != "150.00" {
		return fmt.Errorf("_test/pay_charge: %+v", paid.Data)
	}

	txs, err := want[ogen.TransactionsOK](c.Transactions(ctx, &ogen.TransactionsReq{AccessToken: access, UnitToken: ogen.NewOptString(unit),
		FromDate: ogen.NewOptNilString(now.AddDate(0, 0, -1).Format(time.DateOnly)), ToDate: ogen.NewOptNilString(now.AddDate(0, 0, 1).Format(time.DateOnly))}))
	if err != nil {
		return fmt.Errorf("transactions: %w", err)
	}
	for _, t := range txs.Data {
		if t.Type == ogen.TransactionTypeIn && t.Value == "150.00" && t.Status == ogen.TransactionStatusPaid {
			return nil
		}
	}
	return fmt.Errorf("transactions: no paid income of 150.00 in %+v", txs.Data)
}
