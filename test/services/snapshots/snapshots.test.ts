/**
 * The snapshot service on every test database (SQLite always, PostgreSQL
 * when SVC_TEST_DATABASE_URL is set), on a fresh database per test:
 * export of an empty database, import → export with values that need
 * normalising (64-bit ids, JSON null in a NOT NULL column, zoned times),
 * id counters repaired, every refusal (confirm, format, unknown
 * table/column, bad value, a row its table's row schema cannot read, a table
 * without columns, non-empty tables) and atomicity (one bad row, early or
 * late in the order, leaves no row of the bundle anywhere).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { SnapshotTableSet } from "../../../services/snapshots/tableSet.ts"
import { GatewayTableSet, SNAPSHOT_TABLES } from "../../../src/app/tables.ts"
import { SNAPSHOT_FORMAT, type SnapshotBundleInput } from "../../../services/snapshots/schema.ts"
import { Snapshots } from "../../../services/snapshots/Snapshots.ts"
import { testDatabases } from "../../support/databases.ts"

const T = "2026-03-04T05:06:07.089Z"
const BIG_ID = "9007199254740993" // 2^53 + 1: a JSON number would round it

const approval = (id: number, overrides: Record<string, unknown> = {}) => ({
  id,
  kind: "spend",
  status: "pending",
  plan_id: "plan-1",
  step_index: 0,
  prompt: "ok?",
  context: { amount: 5, tags: ["a"] },
  created_at: T,
  expires_at: null,
  resolved_at: null,
  resolved_by: null,
  reason: null,
  scope_key: null,
  scope_lane: null,
  scope_run_id: null,
  scope_step_index: null,
  ...overrides
})
const plan = (plan_id: string) => ({
  plan_id,
  request_id: `req-${plan_id}`,
  status: "escalate",
  request_json: { request_id: `req-${plan_id}`, trigger: { channel: "x" } },
  decision_json: { decision: "require_approval", rules: [] },
  response_json: null,
  created_at: T,
  execution_state: null,
  run_id: null
})
const event = (id: number | string, step_index: number) => ({
  id,
  replay_id: "r",
  plan_id: "plan-1",
  step_index,
  occurred_at: T,
  action: { type: "plan.created", n: step_index },
  created_at: T,
  prev_hash: null,
  event_hash: null
})
const token = (digest: string) => ({
  digest,
  run_id: "run-1",
  step_index: 0,
  approval_id: 3,
  created_at: T,
  expires_at: null,
  used_at: null,
  revoked_at: null,
  pause_name: "confirm/0"
})

const table = (rows: ReadonlyArray<Record<string, unknown>>) => ({ columns: Object.keys(rows[0] ?? {}), rows })

const bundleOf = (tables: Record<string, ReturnType<typeof table>>): SnapshotBundleInput => ({ format: SNAPSHOT_FORMAT, tables })

const importing = (tables: Record<string, ReturnType<typeof table>>, confirm = "IMPORT") =>
  Effect.flatMap(Snapshots, (s) => s.importBundle({ confirm, bundle: bundleOf(tables) }))

const failureOf = <A, E>(effect: Effect.Effect<A, E, any>) =>
  Effect.map(Effect.exit(effect), (exit) => {
    if (Exit.isSuccess(exit)) throw new Error("expected a failure")
    const failure = exit.cause.reasons.find((r) => r._tag === "Fail")
    if (failure === undefined || failure._tag !== "Fail") throw new Error(`expected a typed failure, got a defect`)
    return failure.error as { readonly _tag: string; readonly message: string }
  })

/** Rows in every registered table. */
const totalRows = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  let total = 0
  for (const t of SNAPSHOT_TABLES) total += Number((yield* sql.unsafe<{ n: unknown }>(`SELECT COUNT(*) AS n FROM ${t.name}`))[0]!.n)
  return total
})

for (const db of testDatabases) {
  describe(`Snapshots on ${db.name}`, () => {
    const fresh = <A, E>(effect: Effect.Effect<A, E, Snapshots | SqlClient.SqlClient>) =>
      Effect.provide(effect, Snapshots.layerNoDeps.pipe(Layer.provide(SnapshotTableSet.layer(GatewayTableSet)), Layer.provideMerge(db.make())))

    it.effect("exports every registered table of an empty database, creating them first", () =>
      fresh(Effect.gen(function*() {
        const bundle = yield* Effect.flatMap(Snapshots, (s) => s.exportBundle())
        expect(bundle).toMatchObject({ format: "svc.snapshot.v2", gateway_version: "0.1.0", db_kind: db.kind })
        expect(Date.parse(bundle.exported_at)).not.toBeNaN()
        expect(Object.keys(bundle.tables)).toEqual(SNAPSHOT_TABLES.map((t) => t.name))
        for (const t of SNAPSHOT_TABLES) expect(bundle.tables[t.name]).toEqual({ columns: t.columns.map((c) => c.name), rows: [] })
      })))

    it.effect("exports only the tables asked for; an unknown table is InvalidRequest naming it", () =>
      fresh(Effect.gen(function*() {
        const snapshots = yield* Snapshots
        expect(Object.keys((yield* snapshots.exportBundle(["workflow_runs", "approvals"])).tables)).toEqual(["approvals", "workflow_runs"])
        expect(yield* failureOf(snapshots.exportBundle(["approvals", "cluster_messages"]))).toMatchObject({
          _tag: "InvalidRequest",
          message: "unknown table 'cluster_messages'"
        })
      })))

    it.effect("imports, then exports the same rows in primary-key order, with values normalised", () =>
      fresh(Effect.gen(function*() {
        const result = yield* importing({
          approvals: table([approval(9), approval(5, { context: null, status: "approved", resolved_at: "2026-03-04T06:06:07+01:00" })]),
          planner_events: table([event(BIG_ID, 1), event(2, 0)]),
          plans: table([plan("plan-2"), plan("plan-1")])
        })
        expect(result).toEqual({
          status: "ok",
          imported_at: expect.any(String),
          format: "svc.snapshot.v2",
          tables: ["plans", "planner_events", "approvals"],
          inserted_total: 6,
          inserted_by_table: { plans: 2, planner_events: 2, approvals: 2 }
        })
        const exported = (yield* Effect.flatMap(Snapshots, (s) => s.exportBundle(["plans", "planner_events", "approvals"]))).tables
        expect(exported.approvals!.rows).toEqual([
          // context is NOT NULL: JSON null is kept as the JSON text null; the zoned time is stored in UTC.
          approval(5, { context: null, status: "approved", resolved_at: "2026-03-04T05:06:07.000Z" }),
          approval(9)
        ])
        expect(exported.planner_events!.rows).toEqual([event(2, 0), event(BIG_ID, 1)])
        expect(exported.plans!.rows.map((r) => r.plan_id)).toEqual(["plan-1", "plan-2"])
        expect(exported.plans!.rows[0]).toEqual(plan("plan-1"))
        const sql = yield* SqlClient.SqlClient
        expect((yield* sql`SELECT context FROM approvals WHERE id = 5`)[0]).toEqual({ context: "null" })
      })))

    it.effect("a stored value that does not fit its column fails the export (export_failed) naming table, row key and column, not the value", () =>
      fresh(Effect.gen(function*() {
        yield* importing({ approvals: table([approval(3)]) })
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE approvals SET context = ${"{secret-ish not json"} WHERE id = 3`
        const failure = yield* failureOf(Effect.flatMap(Snapshots, (s) => s.exportBundle(["approvals"])))
        expect(failure).toMatchObject({ _tag: "SnapshotExportFailed", message: "table approvals, row id=3, column context: not JSON text" })
      })))

    it.effect("repairs the id counters: the next row gets an id above the imported ones", () =>
      fresh(Effect.gen(function*() {
        yield* importing({ approvals: table([approval(41), approval(7)]), planner_events: table([event(12, 0)]) })
        const sql = yield* SqlClient.SqlClient
        const next = yield* sql`INSERT INTO approvals (kind, status, plan_id, step_index, prompt, context, created_at)
          VALUES ('spend', 'pending', 'p', 0, 'x', '{}', ${T}) RETURNING id`
        expect(Number(next[0]!.id)).toBe(42)
        const nextEvent = yield* sql`INSERT INTO planner_events (replay_id, plan_id, step_index, occurred_at, action, created_at)
          VALUES ('r', 'p2', 0, ${T}, '{}', ${T}) RETURNING id`
        expect(Number(nextEvent[0]!.id)).toBe(13)
      })))

    it.effect("refuses a wrong confirm, an unknown format, table or column, and values that do not fit (400 naming them)", () =>
      fresh(Effect.gen(function*() {
        const snapshots = yield* Snapshots
        const refused = (request: unknown) => failureOf(snapshots.importBundle(request as never))
        const ok = { approvals: table([approval(1)]) }
        expect(yield* refused({ confirm: "yes", bundle: bundleOf(ok) })).toMatchObject({
          _tag: "InvalidRequest",
          message: "confirm: expected \"IMPORT\" to confirm the import"
        })
        expect(yield* refused({ confirm: "IMPORT", bundle: { format: "tyrum.snapshot.v1", tables: ok } })).toMatchObject({
          _tag: "InvalidRequest",
          message: "bundle.format: unknown format 'tyrum.snapshot.v1'; this gateway reads svc.snapshot.v2"
        })
        expect(yield* refused({ confirm: "IMPORT", bundle: bundleOf({ ...ok, facts: table([]), cluster_messages: table([]) }) })).toMatchObject({
          message: "unknown tables 'facts', 'cluster_messages'"
        })
        expect(yield* failureOf(importing({ approvals: table([approval(1, { colour: "red" })]) }))).toMatchObject({
          message: "bundle.tables.approvals.columns: unknown column 'colour' in table 'approvals'"
        })
        expect(yield* failureOf(importing({ approvals: { columns: ["id"], rows: [{ id: 1, kind: "x" }] } }))).toMatchObject({
          message: "bundle.tables.approvals.rows[0]: column 'kind' is not in bundle.tables.approvals.columns"
        })
        expect(yield* failureOf(importing({ approvals: { columns: ["id"], rows: [[1]] as never } }))).toMatchObject({
          message: "bundle.tables.approvals.rows[0]: expected an object {column: value}"
        })
        expect(yield* failureOf(importing({ approvals: table([approval(1), approval(2, { step_index: "two" })]) }))).toMatchObject({
          message: "bundle.tables.approvals.rows[1].step_index: expected an integer (a number, or a decimal string beyond 2^53)"
        })
        expect(yield* failureOf(importing({ approvals: table([approval(1, { created_at: "2026-03-04 05:06" })]) }))).toMatchObject({
          message: expect.stringMatching(/^bundle\.tables\.approvals\.rows\[0\]\.created_at: expected an ISO-8601 timestamp/)
        })
        expect(yield* totalRows).toBe(0)
      })))

    it.effect("a table entry without columns (`columns: []`, rows `{}`) is 400 naming the table, row and field, not an SQL error", () =>
      fresh(Effect.gen(function*() {
        const failure = yield* failureOf(importing({ approvals: { columns: [], rows: [{}, {}] } }))
        expect(failure).toEqual(expect.objectContaining({
          _tag: "InvalidRequest",
          message: expect.stringMatching(/^bundle\.tables\.approvals\.rows\[0\]\.kind: expected /)
        }))
        expect(yield* totalRows).toBe(0)
      })))

    it.effect("every row must be readable by its table's row schema: one that is not (role god, scope *) is 400 and nothing is written", () =>
      fresh(Effect.gen(function*() {
        const deviceToken = (token_id: string, overrides: Record<string, unknown> = {}) => ({
          token_id,
          token_digest: `digest-${token_id}-0123456789abcdef`,
          device_id: "ops-laptop",
          role: "client",
          scopes: ["operator.read"],
          issued_at: T,
          expires_at: null,
          revoked_at: null,
          ...overrides
        })
        const good = {
          plans: table([plan("plan-1")]),
          approvals: table([approval(1)]),
          device_tokens: table([deviceToken("t-1")])
        }
        const cases: ReadonlyArray<readonly [Record<string, ReturnType<typeof table>>, RegExp]> = [
          [{ device_tokens: table([deviceToken("t-1"), deviceToken("t-2", { role: "god" })]) }, /^bundle\.tables\.device_tokens\.rows\[1\]\.role: expected /],
          [{ device_tokens: table([deviceToken("t-1", { scopes: ["*"] })]) }, /^bundle\.tables\.device_tokens\.rows\[0\]\.scopes\[0\]: expected one of operator\.read, /],
          [{ approvals: table([approval(1, { status: "bogus" })]) }, /^bundle\.tables\.approvals\.rows\[0\]\.status: expected /],
          [{ approvals: { columns: ["id", "kind"], rows: [{ id: 1, kind: "spend" }] } }, /^bundle\.tables\.approvals\.rows\[0\]\.status: expected /],
          [{ plans: table([{ ...plan("plan-1"), decision_json: { decision: "maybe" } }]) }, /^bundle\.tables\.plans\.rows\[0\]\.decision_json/]
        ]
        for (const [bad, message] of cases) {
          const failure = yield* failureOf(importing({ ...good, ...bad }))
          expect(failure._tag).toBe("InvalidRequest")
          expect(failure.message).toMatch(message)
          // Names the field, never the value.
          for (const value of ["god", "bogus", "maybe", "digest-t-"]) expect(failure.message).not.toContain(value)
          expect(yield* totalRows).toBe(0)
        }
        expect((yield* importing(good)).inserted_total).toBe(3)
      })))

    it.effect("refuses (ImportRefused) when a target table holds rows, and changes nothing", () =>
      fresh(Effect.gen(function*() {
        yield* importing({ approvals: table([approval(1)]) })
        const refused = yield* failureOf(importing({ plans: table([plan("plan-1")]), approvals: table([approval(2)]) }))
        expect(refused).toEqual(expect.objectContaining({
          _tag: "ImportRefused",
          message: "import refused: the target tables approvals are not empty (an import only fills empty tables; nothing was imported)"
        }))
        expect(yield* totalRows).toBe(1)
      })))

    it.effect("replaces policy_snapshots written at start only while every other table is empty", () =>
      fresh(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* Effect.flatMap(Snapshots, (s) => s.exportBundle(["policy_snapshots"])) // creates the tables
        yield* sql`INSERT INTO policy_snapshots (policy_snapshot_id, sha256, bundle_json, created_at) VALUES ('start', 'abc', '{"v":1}', ${T})`
        const snapshot = { policy_snapshot_id: "imported", sha256: "abc", bundle_json: { v: 1 }, created_at: T }
        yield* importing({ policy_snapshots: table([snapshot]) })
        expect(yield* sql`SELECT policy_snapshot_id FROM policy_snapshots`).toEqual([{ policy_snapshot_id: "imported" }])
        yield* importing({ approvals: table([approval(1)]) })
        expect(yield* failureOf(importing({ policy_snapshots: table([snapshot]) }))).toMatchObject({ _tag: "ImportRefused" })
        expect(yield* sql`SELECT policy_snapshot_id FROM policy_snapshots`).toEqual([{ policy_snapshot_id: "imported" }])
      })))

    for (
      const [where, bad] of [
        ["early (plans, a duplicated primary key)", { plans: table([plan("plan-1"), plan("plan-1")]) }],
        ["in the middle (approvals, a duplicated primary key)", { approvals: table([approval(1), approval(1, { prompt: "again" })]) }],
        ["late (workflow_resume_tokens, a duplicated primary key)", { workflow_resume_tokens: table([token("d1"), token("d1")]) }]
      ] as const
    ) {
      it.effect(`atomicity: one bad row ${where} leaves no row of the bundle in any table`, () =>
        fresh(Effect.gen(function*() {
          const good = {
            plans: table([plan("plan-1"), plan("plan-2")]),
            planner_events: table([event(1, 0)]),
            approvals: table([approval(1), approval(2)]),
            workflow_resume_tokens: table([token("d1"), token("d2")])
          }
          const failure = yield* failureOf(importing({ ...good, ...bad }))
          expect(failure._tag).toBe("InvalidRequest")
          expect(failure.message).toMatch(new RegExp(`^bundle\\.tables\\.${Object.keys(bad)[0]}: the database rejected its rows: .*(unique|UNIQUE|check|CHECK)`))
          expect(yield* totalRows).toBe(0)
          // The same bundle without the bad row goes in whole.
          expect((yield* importing(good)).inserted_total).toBe(7)
        })))
    }
  })
}
