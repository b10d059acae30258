/**
 * libsql instrumentation for the workflow benchmark's gateway process
 * (`workflow-gateway.ts`, SQLite only): every statement the driver executed
 * (`BEGIN`/`COMMIT` included; `workflow-sqlcount.ts`) and how long each held
 * the event loop (libsql is synchronous), by table and by verb. Patched on
 * libsql's prototypes, so it sees every connection of the process.
 *
 * @module
 */
import Database from "libsql"
import { classify, makeCounts, record, type SqlCounts } from "./workflow-sqlcount.ts"

/** Milliseconds spent inside libsql calls, in total and by table and verb. */
export interface DriverTime {
  total: number
  readonly byTable: Record<string, number>
  readonly byVerb: Record<string, number>
}

/** What {@link instrumentLibsql} collects (mutable; copy before diffing). */
export interface DriverStats {
  readonly counts: SqlCounts
  readonly time: DriverTime
}

const SOURCE = Symbol("sql")
const SYNCHRONOUS_SET = Symbol("synchronous")

/**
 * Patches libsql: counts and times statements when `counting`; `synchronous`
 * (an experiment, e.g. `NORMAL`) sets `PRAGMA synchronous` on each
 * connection before its first statement (the gateway itself keeps SQLite's
 * default, FULL: every COMMIT waits for fsync).
 */
export const instrumentLibsql = (synchronous: string | undefined, counting: boolean): DriverStats => {
  const stats: DriverStats = { counts: makeCounts(), time: { total: 0, byTable: {}, byVerb: {} } }
  const timed = (sql: string, ms: number) => {
    stats.time.total += ms
    const { table, verb } = classify(sql)
    stats.time.byTable[table] = (stats.time.byTable[table] ?? 0) + ms
    stats.time.byVerb[verb] = (stats.time.byVerb[verb] ?? 0) + ms
  }
  const database = Database.prototype as unknown as Record<string | symbol, any>
  const prepare = database.prepare
  const exec = database.exec
  database.prepare = function(this: Record<symbol, boolean>, sql: string) {
    if (synchronous !== undefined && this[SYNCHRONOUS_SET] !== true) {
      this[SYNCHRONOUS_SET] = true
      exec.call(this, `PRAGMA synchronous = ${synchronous}`)
    }
    const statement = prepare.call(this, sql)
    statement[SOURCE] = sql
    return statement
  }
  if (!counting) return stats
  database.exec = function(this: unknown, sql: string) {
    record(stats.counts, sql)
    const t0 = performance.now()
    try {
      return exec.call(this, sql)
    } finally {
      timed(sql, performance.now() - t0)
    }
  }
  const probe = new Database(":memory:")
  const statement = Object.getPrototypeOf(probe.prepare("SELECT 1")) as Record<string, (...args: Array<unknown>) => unknown>
  probe.close()
  // Counted where a statement executes (`all` calls `iterate`), timed where the caller waits (`all`, not `iterate`).
  for (const name of ["run", "get", "iterate", "all"]) {
    const original = statement[name]
    const counts = name !== "all"
    const times = name !== "iterate"
    statement[name] = function(this: Record<symbol, string>, ...args: Array<unknown>) {
      const sql = this[SOURCE] ?? ""
      if (counts) record(stats.counts, sql)
      if (!times) return original.apply(this, args)
      const t0 = performance.now()
      try {
        return original.apply(this, args)
      } finally {
        timed(sql, performance.now() - t0)
      }
    }
  }
  return stats
}
