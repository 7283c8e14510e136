// Command oapiflow runs one short flow against a live fincom in test mode
// through the client oapi-codegen generates from testdata/openapi.json:
// a throw-away domain, a contact, a sales order, its charge, a simulated
// payment, and the income it booked in /transactions. It exits non-zero
// on the first answer that is not what the document promises.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	"time"

	"fincomclients/oapi"
)

func main() {
	base := flag.String("base", "http://127.0.0.1:8080/api/v1", "fincom's API base URL")
	flag.Parse()
	if err := run(context.Background(), *base); err != nil {
		log.Fatalf("oapi-codegen flow: %v", err)
	}
	fmt.Println("oapi-codegen flow: ok")
}

// ok checks a response: status 200 and a decoded body.
func ok[T any](status int, body []byte, v *T, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK || v == nil {
		return nil, fmt.Errorf("status %d: %s", status, body)
	}
	return v, nil
}

func run(ctx context.Context, base string) error {
	c, err := oapi.NewClientWithResponses(base)
	if err != nil {
		return err
	}
	dr, err := c.TestDomainsWithResponse(ctx, oapi.TestDomainsJSONRequestBody{})
	if err != nil {
		return err
	}
	d, err := ok(dr.StatusCode(), dr.Body, dr.JSON200, nil)
	if err != nil {
		return fmt.Errorf("_test/domains: %w", err)
	}
	access, unit := d.Data.AccessToken, d.Data.UnitToken

	cr, err := c.GetCategoriesWithResponse(ctx, oapi.GetCategoriesJSONRequestBody{AccessToken: access, UnitToken: unit, Type: "in"})
	if err != nil {
		return err
	}
	cats, err := ok(cr.StatusCode(), cr.Body, cr.JSON200, nil)
	if err != nil || len(cats.Data) == 0 {
		return fmt.Errorf("get_categories: %v %s", err, cr.Body)
	}

	pr, err := c.ListPaymentsMethodWithResponse(ctx, oapi.ListPaymentsMethodJSONRequestBody{AccessToken: access, UnitToken: unit})
	if err != nil {
		return err
	}
	methods, err := ok(pr.StatusCode(), pr.Body, pr.JSON200, nil)
	if err != nil {
		return fmt.Errorf("list_payments_method: %w", err)
	}
	boleto := ""
	for _, m := range methods.Data {
		if m.PaymentKey == "BOLETO" {
			boleto = m.Token.String()
		}
	}
	if boleto == "" {
		return fmt.Errorf("no BOLETO payment method in %s", pr.Body)
	}

	legal, register, name := oapi.InsertContactJSONBodyType("legal"), "11.222.333/0001-81", "Beta Serviços S.A."
	ir, err := c.InsertContactWithResponse(ctx, oapi.InsertContactJSONRequestBody{AccessToken: access, UnitToken: unit,
		Type: legal, Register: register, SocialReason: &name})
	if err != nil {
		return err
	}
	contact, err := ok(ir.StatusCode(), ir.Body, ir.JSON200, nil)
	if err != nil {
		return fmt.Errorf("insert_contact: %w", err)
	}

	var value oapi.AmountInput
	if err := value.FromAmountInput1("150.00"); err != nil {
		return err
	}
	category := cats.Data[0].Token.String()
	desc, provider, automation := "Consultoria", oapi.OrderChargeInputProviderBank("provider_a"), true
	// São Paulo's today (no daylight saving since 2019), the server's.
	now := time.Now().In(time.FixedZone("-03", -3*3600))
	// The optional days are texts (blank is none), YYYY-MM-DD.
	today := now.Format(time.DateOnly)
	from, to := now.AddDate(0, 0, -1).Format(time.DateOnly), now.AddDate(0, 0, 1).Format(time.DateOnly)
	or, err := c.InsertSalesOrderWithResponse(ctx, oapi.InsertSalesOrderJSONRequestBody{AccessToken: access, UnitToken: unit,
		Pv:          &oapi.OrderPVInput{IdTokenContact: contact.Token, Description: desc, Value: value},
		Faturamento: &oapi.OrderFaturamentoInput{IdTokenCategory: category, EstimatedPaymentDate: &today, InAutomation: &automation},
		Charge:      &oapi.OrderChargeInput{PaymentType: boleto, ProviderBank: &provider},
	})
	if err != nil {
		return err
	}
	order, err := ok(or.StatusCode(), or.Body, or.JSON200, nil)
	if err != nil {
		return fmt.Errorf("insert_sales_order: %w", err)
	}

	gr, err := c.GenerateChargeWithResponse(ctx, oapi.GenerateChargeJSONRequestBody{AccessToken: access, UnitToken: unit, IdToken: order.Data.Id})
	if err != nil {
		return err
	}
	charge, err := ok(gr.StatusCode(), gr.Body, gr.JSON200, nil)
	if err != nil || charge.Data.ChargeStatus != "PENDING" || len(charge.Data.Charges) != 1 || charge.Data.Charges[0].BoletoLine == nil {
		return fmt.Errorf("generate_charge: %v %s", err, gr.Body)
	}

	yr, err := c.TestPayChargeWithResponse(ctx, oapi.TestPayChargeJSONRequestBody{AccessToken: access, UnitToken: unit, IdToken: order.Data.Id})
	if err != nil {
		return err
	}
	paid, err := ok(yr.StatusCode(), yr.Body, yr.JSON200, nil)
	if err != nil || paid.Data.ChargeStatus != "PAID" || paid.Data.PaidAmount != "150.00" {
		return fmt.Errorf("_test/pay_charge: %v %s", err, yr.Body)
	}

	tr, err := c.TransactionsWithResponse(ctx, oapi.TransactionsJSONRequestBody{AccessToken: access, UnitToken: &unit, FromDate: &from, ToDate: &to})
	if err != nil {
		return err
	}
	txs, err := ok(tr.StatusCode(), tr.Body, tr.JSON200, nil)
	if err != nil {
		return fmt.Errorf("transactions: %w", err)
	}
	for _, t := range txs.Data {
		if t.Type == "in" && t.Value == "150.00" && t.Status == "paid" {
			return nil
		}
	}
	return fmt.Errorf("transactions: no paid income of 150.00 in %s", tr.Body)
}
