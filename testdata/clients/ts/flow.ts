// One short flow against a live fincom in test mode through the types
// openapi-typescript generates from testdata/openapi.json and the
// openapi-fetch client: a throw-away domain, a contact, a sales order, its
// charge, a simulated payment, and the income in /transactions. Compiled
// with tsc --strict; any answer that is not what the document promises
// ends the run with a non-zero status.
import createClient from "openapi-fetch";
import type { paths } from "./api.js";

const base = process.argv[2] ?? "http://127.0.0.1:8080/api/v1";
const client = createClient<paths>({ baseUrl: base });

function fail(step: string, detail: unknown): never {
  throw new Error(`${step}: ${JSON.stringify(detail)}`);
}

// São Paulo's day (UTC-3, no daylight saving since 2019), the server's.
function day(offset: number): string {
  const t = new Date(Date.now() - 3 * 3600 * 1000 + offset * 86400 * 1000);
  return t.toISOString().slice(0, 10);
}

async function main(): Promise<void> {
  const dom = await client.POST("/_test/domains", { body: {} });
  if (!dom.data) fail("_test/domains", dom.error);
  const auth = { access_token: dom.data.data.access_token, unit_token: dom.data.data.unit_token };

  const cats = await client.POST("/get_categories", { body: { ...auth, type: "in" } });
  const category = cats.data?.data[0];
  if (!category) fail("get_categories", cats.error);

  const methods = await client.POST("/list_payments_method", { body: auth });
  const boleto = methods.data?.data.find((m) => m.payment_key === "BOLETO");
  if (!boleto) fail("list_payments_method", methods.error);

  const contact = await client.POST("/insert_contact", {
    body: { ...auth, type: "legal", register: "11.222.333/0001-81", socialReason: "Beta Serviços S.A." },
  });
  if (!contact.data) fail("insert_contact", contact.error);

  const order = await client.POST("/insert_sales_order", {
    body: {
      ...auth,
      pv: { id_token_contact: contact.data.token, description: "Consultoria", value: "150.00" },
      faturamento: { id_token_category: category.token, estimated_payment_date: day(0), in_automation: true },
      charge: { payment_type: boleto.token, provider_bank: "provider_a" },
    },
  });
  if (!order.data) fail("insert_sales_order", order.error);
  const id = order.data.data.id;

  const charge = await client.POST("/generate_charge", { body: { ...auth, id_token: id } });
  if (!charge.data || charge.data.data.charge_status !== "PENDING" || !charge.data.data.charges[0]?.boleto_line) {
    fail("generate_charge", charge.data ?? charge.error);
  }

  const paid = await client.POST("/_test/pay_charge", { body: { ...auth, id_token: id } });
  if (!paid.data || paid.data.data.charge_status !== "PAID" || paid.data.data.paid_amount !== "150.00") {
    fail("_test/pay_charge", paid.data ?? paid.error);
  }

  const txs = await client.POST("/transactions", { body: { ...auth, from_date: day(-1), to_date: day(1) } });
  if (!txs.data) fail("transactions", txs.error);
  const income = txs.data.data.find((t) => t.type === "in" && t.value === "150.00" && t.status === "paid");
  if (!income) fail("transactions", txs.data.data);
  console.log("openapi-typescript flow: ok");
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
