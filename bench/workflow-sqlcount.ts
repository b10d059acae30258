/**
 * Counts the SQL statements a gateway runs, for the workflow benchmark
 * (`bench/workflow-run.ts`). Two counters fill the same {@link SqlCounts}:
 *
 * - SQLite: the driver itself (`workflow-libsql.ts` patches libsql), so
 *   every statement is seen as executed, BEGIN/COMMIT included;
 * - PostgreSQL (no driver hook: `@effect/sql-pg` speaks the wire protocol
 *   itself): `effect/sql`. Every statement built with the client (the
 *   cluster engine's `cluster_*` statements included, although the cluster
 *   runs them with tracing disabled) passes through
 *   `Statement.CurrentTransformer` ({@link countingTransformer}); transaction
 *   control does not, so each `withTransaction` call
 *   ({@link countingTransactions}) counts as two statements (BEGIN + COMMIT,
 *   or SAVEPOINT + RELEASE when nested).
 *
 * On SQLite both ways gave exactly the same counts, table by table. Not
 * counted on PostgreSQL: a connection's set-up (`search_path`) and the
 * `SELECT 1` start-up check.
 *
 * @module
 */
import { Context, Effect, Layer } from "effect"
import { SqlClient, Statement } from "effect/sql"

/** Running totals (mutable; read with {@link snapshot}). */
export interface SqlCounts {
  /** Every statement, transaction control (BEGIN, COMMIT, SAVEPOINT, …) included. */
  statements: number
  /** Transactions begun (BEGIN or SAVEPOINT). */
  transactions: number
  /** Statements by the first table they name (`(none)` when none, e.g. BEGIN). */
  readonly byTable: Record<string, number>
  /** Statements by their first keyword (SELECT, INSERT, UPDATE, WITH, BEGIN, …). */
  readonly byVerb: Record<string, number>
  /** Statements by their text (whitespace collapsed, literals replaced by `?`, cut at 120 characters). */
  readonly byText: Record<string, number>
}

/** A fresh counter. */
export const makeCounts = (): SqlCounts => ({ statements: 0, transactions: 0, byTable: {}, byVerb: {}, byText: {} })

/** A plain copy of the counts. */
export const snapshot = (counts: SqlCounts): SqlCounts => ({
  statements: counts.statements,
  transactions: counts.transactions,
  byTable: { ...counts.byTable },
  byVerb: { ...counts.byVerb },
  byText: { ...counts.byText }
})

const TABLE = /\b(?:from|into|update|table|join)\s+(?:if\s+(?:not\s+)?exists\s+)?["`]?([A-Za-z_][A-Za-z0-9_]*)/i
const VERB = /^\s*([A-Za-z]+)/

/** A statement's text as a grouping key. */
export const textKey = (text: string): string =>
  text.replace(/\s+/g, " ").replace(/'[^']*'/g, "?").replace(/\b\d+\b/g, "?").replace(/\?(?:\s*,\s*\?)+/g, "?").trim().slice(0, 120)

/** Table, verb and text key of a statement's SQL. */
export interface Classified {
  readonly table: string
  readonly verb: string
  readonly key: string
}

// Classifying costs a few regular expressions; the same texts come back all the time.
const classified = new Map<string, Classified>()

/** A statement's table, verb and text key (memoised; a reset bounds texts with inlined literals). */
export const classify = (text: string): Classified => {
  let c = classified.get(text)
  if (c === undefined) {
    if (classified.size > 5000) classified.clear()
    c = {
      table: TABLE.exec(text)?.[1]?.toLowerCase() ?? "(none)",
      verb: VERB.exec(text)?.[1]?.toUpperCase() ?? "?",
      key: textKey(text)
    }
    classified.set(text, c)
  }
  return c
}

const add = (counts: SqlCounts, c: Classified): void => {
  counts.statements++
  counts.byTable[c.table] = (counts.byTable[c.table] ?? 0) + 1
  counts.byVerb[c.verb] = (counts.byVerb[c.verb] ?? 0) + 1
  counts.byText[c.key] = (counts.byText[c.key] ?? 0) + 1
}

/** Records one executed statement's SQL text. */
export const record = (counts: SqlCounts, text: string): void => {
  const c = classify(text)
  if (c.verb === "BEGIN" || c.verb === "SAVEPOINT") counts.transactions++
  add(counts, c)
}

const BEGIN: Classified = { table: "(none)", verb: "BEGIN", key: "BEGIN (one per withTransaction)" }
const COMMIT: Classified = { table: "(none)", verb: "COMMIT", key: "COMMIT (one per withTransaction)" }

/**
 * Wraps a storage layer so that everything built on it counts its
 * transactions into `counts`: the `withTransaction` of the `SqlClient` it
 * provides is replaced (on the instance) by one that counts.
 */
export const countingTransactions = <ROut, E, RIn>(
  storage: Layer.Layer<ROut, E, RIn>,
  counts: SqlCounts
): Layer.Layer<ROut, E, RIn> =>
  Layer.effectContext(Effect.gen(function*() {
    const context = yield* Layer.build(storage)
    const sql = Context.get(context as Context.Context<SqlClient.SqlClient>, SqlClient.SqlClient)
    const original = sql.withTransaction
    const withTransaction: SqlClient.SqlClient["withTransaction"] = (effect) =>
      Effect.suspend(() => {
        counts.transactions++
        add(counts, BEGIN)
        add(counts, COMMIT)
        return original(effect)
      })
    ;(sql as { withTransaction: SqlClient.SqlClient["withTransaction"] }).withTransaction = withTransaction
    return context
  }))

/**
 * `Statement.CurrentTransformer` counting every statement into `counts`
 * (compiles it once more to read its text). Provide it to the whole gateway
 * graph: fibers forked while the graph is built (the cluster's pollers, the
 * HTTP server's request fibers) inherit it.
 */
export const countingTransformer = (counts: SqlCounts): Layer.Layer<never> =>
  Layer.succeed(Statement.CurrentTransformer, (self) => {
    record(counts, self.compile()[0])
    return Effect.succeed(self)
  })
