/**
 * Read-only queries of the diagnostics over other subsystems' tables
 * (docs/operations.md "Status", "Usage"): run queue depth
 * (`workflow_runs`), pending approvals (`approvals`), pending watcher
 * firings (`watcher_firings`) and
 * attempt costs (`workflow_attempts.cost`, JSON text of `AttemptCost`). It
 * owns no table. Counts are cast to INTEGER so both dialects return numbers.
 *
 * @module
 */
import { Context, Effect, Layer, Result, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { findRows } from "../../layers/storage/rows.ts"
import { AttemptCost } from "../workflow/runs/schema.ts"
import type { UsageTotals } from "./schema.ts"
import { repositoryEdge } from "../../layers/storage/repositoryEdge.ts"

/** Which attempts a usage sum covers. */
export type UsageFilter =
  | { readonly kind: "run"; readonly run_id: string }
  | { readonly kind: "key"; readonly key: string }
  | { readonly kind: "agent"; readonly agent_id: string }
  | { readonly kind: "deployment" }

/** Runs that are not finished, by status. */
export interface RunDepth {
  readonly queued: number
  readonly running: number
  readonly paused: number
}

/** Usage sums plus how many stored costs could not be read (skipped, logged). */
export interface UsageSums {
  readonly totals: UsageTotals
  readonly unreadable: number
}

const StatusCount = Schema.Struct({ status: Schema.String, n: Schema.Number })
const Count = Schema.Struct({ n: Schema.Number })
const CostRow = Schema.Struct({ cost: Schema.NullOr(Schema.String) })
const decodeCost = Schema.decodeUnknownResult(Schema.fromJsonString(AttemptCost))

/** Adds one attempt's cost to `sum` (fields it lacks count 0; total_tokens falls back to input + output, as budgets do). */
const addCost = (sum: { -readonly [K in keyof UsageTotals]: UsageTotals[K] }, cost: AttemptCost) => {
  const finite = (n: number | undefined) => (n !== undefined && Number.isFinite(n) ? n : 0)
  sum.duration_ms += finite(cost.duration_ms)
  sum.input_tokens += finite(cost.input_tokens)
  sum.output_tokens += finite(cost.output_tokens)
  sum.total_tokens += cost.total_tokens !== undefined ? finite(cost.total_tokens) : finite(cost.input_tokens) + finite(cost.output_tokens)
  sum.usd_micros += finite(cost.usd_micros)
}

/** The queries; needs a `SqlClient`. */
export class DiagnosticsRepo extends Context.Service<DiagnosticsRepo, {
  /** Queued, running and paused runs. */
  readonly runDepth: Effect.Effect<RunDepth>
  /** Approvals with status `pending`. */
  readonly approvalsPending: Effect.Effect<number>
  /** Watcher firings with status `pending` (claimed; their run not started yet). */
  readonly watcherFiringsPending: Effect.Effect<number>
  /** Sums of the attempt costs in `filter`'s scope. */
  readonly usage: (filter: UsageFilter) => Effect.Effect<UsageSums>
}>()("svc-gateway/diagnostics/DiagnosticsRepo") {
  static readonly layer = Layer.effect(
    DiagnosticsRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const statusCounts = findRows(StatusCount)
      const counts = findRows(Count)
      const costs = findRows(CostRow)
      const single = (rows: ReadonlyArray<{ readonly n: number }>) => rows[0]?.n ?? 0

      const runDepth = Effect.map(
        statusCounts(sql`SELECT status, CAST(COUNT(*) AS INTEGER) AS n FROM workflow_runs
          WHERE status IN ('queued', 'running', 'paused') GROUP BY status`),
        (rows): RunDepth => {
          const depth = { queued: 0, running: 0, paused: 0 }
          for (const row of rows) if (row.status in depth) depth[row.status as keyof RunDepth] = row.n
          return depth
        }
      )

      const approvalsPending = Effect.map(
        counts(sql`SELECT CAST(COUNT(*) AS INTEGER) AS n FROM approvals WHERE status = 'pending'`),
        single
      )

      const watcherFiringsPending = Effect.map(
        counts(sql`SELECT CAST(COUNT(*) AS INTEGER) AS n FROM watcher_firings WHERE status = 'pending'`),
        single
      )

      const costsOf = (filter: UsageFilter) => {
        switch (filter.kind) {
          case "run":
            return costs(sql`SELECT cost FROM workflow_attempts WHERE run_id = ${filter.run_id}`)
          case "key":
            return costs(sql`SELECT a.cost AS cost FROM workflow_attempts a JOIN workflow_runs r ON r.run_id = a.run_id
              WHERE r.key = ${filter.key}`)
          case "agent": {
            // An exact prefix match (LIKE would treat `_` in agent ids as a wildcard and ignore case on SQLite).
            const prefix = `agent:${filter.agent_id}:`
            return costs(sql`SELECT a.cost AS cost FROM workflow_attempts a JOIN workflow_runs r ON r.run_id = a.run_id
              WHERE substr(r.key, 1, ${prefix.length}) = ${prefix}`)
          }
          case "deployment":
            return costs(sql`SELECT cost FROM workflow_attempts`)
        }
      }

      const TurnSums = Schema.Struct({
        turns: Schema.Union([Schema.Number, Schema.NumberFromString]),
        input_tokens: Schema.NullOr(Schema.Union([Schema.Number, Schema.NumberFromString])),
        output_tokens: Schema.NullOr(Schema.Union([Schema.Number, Schema.NumberFromString])),
        total_tokens: Schema.NullOr(Schema.Union([Schema.Number, Schema.NumberFromString])),
        usd_micros: Schema.NullOr(Schema.Union([Schema.Number, Schema.NumberFromString]))
      })
      /** The agent runtime's turns of the scope (services/agent: one context report a turn, with its usage). */
      const turnsOf = (filter: UsageFilter) => {
        // Counts and sums cast to plain numbers (PostgreSQL's COUNT and SUM are bigint); DOUBLE PRECISION is REAL on SQLite.
        const select = sql`SELECT CAST(COUNT(*) AS INTEGER) AS turns,
          CAST(SUM(c.input_tokens) AS DOUBLE PRECISION) AS input_tokens, CAST(SUM(c.output_tokens) AS DOUBLE PRECISION) AS output_tokens,
          CAST(SUM(c.total_tokens) AS DOUBLE PRECISION) AS total_tokens, CAST(SUM(c.usd_micros) AS DOUBLE PRECISION) AS usd_micros
          FROM agent_context_reports c`
        const where = (() => {
          switch (filter.kind) {
            case "run":
              return sql` WHERE c.run_id = ${filter.run_id}`
            case "key":
              return sql` JOIN agent_sessions s ON s.session_id = c.session_id
                WHERE 'agent:' || s.agent_id || ':' || s.channel || ':' || s.thread_id = ${filter.key}`
            case "agent":
              return sql` WHERE c.agent_id = ${filter.agent_id}`
            case "deployment":
              return sql``
          }
        })()
        return Effect.map(findRows(TurnSums)(sql`${select}${where}`), (rows) => rows[0])
      }

      const usage = (filter: UsageFilter) =>
        Effect.zipWith(costsOf(filter), turnsOf(filter), (rows, turns): UsageSums => {
          const sum = {
            attempts: rows.length,
            duration_ms: 0,
            input_tokens: turns?.input_tokens ?? 0,
            output_tokens: turns?.output_tokens ?? 0,
            total_tokens: turns?.total_tokens ?? 0,
            usd_micros: turns?.usd_micros ?? 0,
            agent_turns: turns?.turns ?? 0
          }
          let unreadable = 0
          for (const row of rows) {
            if (row.cost === null) continue
            const cost = decodeCost(row.cost)
            if (Result.isSuccess(cost)) addCost(sum, cost.success)
            else unreadable++
          }
          return { totals: sum, unreadable }
        })

      return DiagnosticsRepo.of(repositoryEdge("DiagnosticsRepo", { runDepth, approvalsPending, watcherFiringsPending, usage }))
    })
  )
}
