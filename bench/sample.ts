/**
 * Fixed inputs shared by the HTTP and in-process benchmarks.
 *
 * @module
 */

/** 64-hex admin token given to both servers (a benchmark constant, not a secret). */
export const BENCH_ADMIN_TOKEN = "0123456789abcdef".repeat(4)

/** The request every benchmark evaluates (the `PolicyCheckRequest` example; all four rules allow). */
export const SAMPLE_REQUEST = {
  spend: { amount_minor_units: 8750, currency: "EUR" },
  pii: { categories: ["basic_contact"] },
  legal: { flags: [] },
  connector: { scope: "mcp://calendar" }
} as const

/** {@link SAMPLE_REQUEST} as sent on the wire. */
export const SAMPLE_BODY = JSON.stringify(SAMPLE_REQUEST)

/**
 * Bodies both validators must agree on (accept/reject, and the same decision
 * when accepted); checked before anything is measured.
 */
export const EQUIVALENCE_CASES: ReadonlyArray<unknown> = [
  SAMPLE_REQUEST,
  {},
  { request_id: "r-1", extra: true },
  { spend: { amount_minor_units: 0, currency: "jpy", user_limit_minor_units: 0 } },
  { spend: { amount_minor_units: 60000, currency: "BHD" } },
  { spend: { amount_minor_units: 12000, currency: "usd", note: "x" } },
  { pii: {} },
  { pii: { categories: ["financial", "location"] } },
  { legal: { flags: ["other"] } },
  { legal: { flags: ["requires_review", "prohibited_content"] } },
  { connector: {} },
  { connector: { scope: "  mcp://root  " } },
  { connector: { scope: "mcp://unknown" } },
  // invalid
  null,
  [],
  "text",
  { request_id: 7 },
  { spend: null },
  { spend: [] },
  { spend: { amount_minor_units: -5, currency: "EUR" } },
  { spend: { amount_minor_units: 1.5, currency: "EUR" } },
  { spend: { amount_minor_units: "100", currency: "EUR" } },
  { spend: { amount_minor_units: 2 ** 53, currency: "EUR" } },
  { spend: { amount_minor_units: 100, currency: "EURO" } },
  { spend: { amount_minor_units: 100, currency: "E1R" } },
  { spend: { amount_minor_units: 100 } },
  { spend: { amount_minor_units: 100, currency: "EUR", user_limit_minor_units: -1 } },
  { pii: { categories: ["unknown"] } },
  { pii: { categories: "basic_contact" } },
  { pii: null },
  { legal: { flags: [1] } },
  { connector: { scope: 5 } },
  { connector: "mcp://calendar" }
]

/** The environment of a benchmarked gateway: loopback `port`, `home` as `$SVC_HOME`, the bench admin token, logs at Error. */
export const gatewayEnv = (port: number, home: string): NodeJS.ProcessEnv => ({
  ...process.env,
  SVC_HOST: "127.0.0.1",
  SVC_PORT: String(port),
  SVC_HOME: home,
  SVC_ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
  SVC_LOG_LEVEL: "Error"
})
