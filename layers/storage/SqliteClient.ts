/**
 * A small SQLite driver for `effect/sql`, backed by the synchronous `libsql`
 * package (a better-sqlite3 compatible binding).
 *
 * No Effect 4 SQLite driver is published yet; this file is deliberately
 * self-contained so it can be swapped for an official one. It owns a single
 * connection, shared between fibers with `SqlClient.makeSqliteAcquirers`: a
 * transaction holds the connection until it ends, so no other fiber can run a
 * statement inside it.
 *
 * Behaviour worth knowing:
 * - Parameters: booleans bind as `1`/`0`, `Date` as its ISO-8601 string,
 *   `undefined` as `NULL` (libsql aborts the process on a JS boolean).
 * - Integers: read as `number` when they fit in `Number.MAX_SAFE_INTEGER`,
 *   as `bigint` otherwise, so precision is never lost silently. Provide
 *   `SqlClient.SafeIntegers` as `true` to get every INTEGER as `bigint`.
 * - BLOBs are read as `Uint8Array`.
 * - SQL holding several statements only runs through `.unprepared` without
 *   parameters (via `db.exec`); anywhere else it fails instead of silently
 *   running just the first statement.
 * - Transactions start with `BEGIN IMMEDIATE`; nested ones use savepoints.
 * - Every database gets `foreign_keys = ON` and a busy timeout; file
 *   databases also get `journal_mode = WAL`.
 * - A missing database file is created with mode 0600 (whatever the umask);
 *   SQLite gives the `-wal` and `-shm` files the database file's mode. An
 *   existing file keeps its mode.
 * - `.stream` holds the connection until the stream ends, so do not run other
 *   queries outside a transaction while consuming it.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Predicate from "effect/Predicate"
import type * as Pull from "effect/Pull"
import * as Reactivity from "effect/reactivity/Reactivity"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import * as SqlClient from "effect/sql/SqlClient"
import type { Connection } from "effect/sql/SqlConnection"
import { classifySqliteError, SqlError, UniqueViolation } from "effect/sql/SqlError"
import * as Statement from "effect/sql/Statement"
import Database from "libsql"
import { closeSync, fchmodSync, openSync } from "node:fs"

/**
 * Settings for {@link make} / {@link layer}.
 *
 * - `filename`: database file path, or `":memory:"` for a private in-memory database.
 * - `busyTimeoutMillis`: how long to wait for another process's write lock (default 5000).
 * - `spanAttributes`: extra attributes added to every SQL tracing span.
 * - `synchronous`: `PRAGMA synchronous` of a file database (WAL): `FULL` (SQLite's
 *   default, a sync at every commit) or `NORMAL` (a sync at checkpoints only:
 *   survives a crash of the process, not a power loss).
 */
export interface SqliteClientConfig {
  readonly filename: string
  readonly busyTimeoutMillis?: number | undefined
  readonly synchronous?: "FULL" | "NORMAL" | undefined
  readonly spanAttributes?: Record<string, unknown> | undefined
}

/** The SQLite `SqlClient`, carrying the configuration it was opened with. */
export interface SqliteClient extends SqlClient.SqlClient {
  readonly config: SqliteClientConfig
}

/** Service tag for the {@link SqliteClient}; {@link layer} provides it next to `SqlClient.SqlClient`. */
export const SqliteClient = Context.Service<SqliteClient>("svc-gateway/layers/storage/SqliteClient")

/** True for filenames that open an in-memory database (no WAL, no file). */
export const isMemoryFilename = (filename: string): boolean =>
  filename === ":memory:" || filename === "" || /^file::memory:/.test(filename) || /mode=memory/.test(filename)

type Stmt = Database.Statement

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER)
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER)
const STATEMENT_CACHE_SIZE = 200
const STREAM_CHUNK_SIZE = 100

const toParam = (value: unknown): unknown => {
  if (typeof value === "boolean") return value ? 1 : 0
  if (value === undefined) return null
  if (value instanceof Date) return value.toISOString()
  if (value instanceof ArrayBuffer) return new Uint8Array(value)
  return value
}

const fromValue = (value: unknown, bigints: boolean): unknown =>
  typeof value === "bigint"
    ? bigints || value > MAX_SAFE || value < MIN_SAFE ? value : Number(value)
    : value instanceof ArrayBuffer
    ? new Uint8Array(value)
    : value

const normalizeRow = (row: any, bigints: boolean): any => {
  if (Array.isArray(row)) {
    for (let i = 0; i < row.length; i++) row[i] = fromValue(row[i], bigints)
  } else {
    for (const key in row) row[key] = fromValue(row[key], bigints)
  }
  return row
}

const toSqlError = (cause: unknown, operation: string): SqlError => {
  const detail = Predicate.hasProperty(cause, "message") ? String(cause.message) : String(cause)
  const message = `SQLite ${operation} failed: ${detail}`
  if (Predicate.hasProperty(cause, "code") && cause.code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
    const constraint = detail.replace(/^.*constraint failed:\s*/, "").trim() || "unknown"
    return new SqlError({ reason: new UniqueViolation({ cause, message, operation, constraint }) })
  }
  return new SqlError({ reason: classifySqliteError(cause, { message, operation }) })
}

const attempt = <A>(operation: string, f: () => A): Effect.Effect<A, SqlError> =>
  Effect.try({ try: f, catch: (cause) => toSqlError(cause, operation) })

/**
 * True when `sql` holds more than one statement, i.e. there is SQL after a `;`
 * outside quotes and comments. Over-approximates for trigger bodies, which is
 * harmless: those are routed through `db.exec`, which runs them whole.
 */
export const hasMultipleStatements = (sql: string): boolean => {
  let ended = false
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]
    if (c === "-" && sql[i + 1] === "-") {
      const newline = sql.indexOf("\n", i)
      i = newline === -1 ? sql.length : newline
    } else if (c === "/" && sql[i + 1] === "*") {
      const close = sql.indexOf("*/", i + 2)
      i = close === -1 ? sql.length : close + 1
    } else if (c === ";") {
      ended = true
    } else if (!/\s/.test(c)) {
      if (ended) return true
      const quote = c === "'" || c === "\"" || c === "`" ? c : c === "[" ? "]" : undefined
      if (quote !== undefined) {
        const close = sql.indexOf(quote, i + 1)
        i = close === -1 ? sql.length : close
      }
    }
  }
  return false
}

/** Creates a missing database file, empty and private (0600), before SQLite opens it; a `file:` URI is left to SQLite. */
const createPrivately = (filename: string): void => {
  if (isMemoryFilename(filename) || filename.startsWith("file:")) return
  let fd: number
  try {
    fd = openSync(filename, "wx", 0o600)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return
    throw error
  }
  try {
    // `openSync`'s mode is filtered by the umask.
    fchmodSync(fd, 0o600)
  } finally {
    closeSync(fd)
  }
}

/** The page cache of a file database, in KiB (`PRAGMA cache_size`, negative: KiB rather than pages). */
export const SQLITE_CACHE_KIB = 65_536

const open = (config: SqliteClientConfig): Database.Database => {
  createPrivately(config.filename)
  const db = new Database(config.filename)
  try {
    db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(config.busyTimeoutMillis ?? 5000))}`)
    db.exec("PRAGMA foreign_keys = ON")
    if (!isMemoryFilename(config.filename)) {
      db.exec("PRAGMA journal_mode = WAL")
      // A page cache of up to 64 MiB (SQLite's default is 2 MiB), filled only as pages are read: a search over a large
      // keyword index (memory, docs/performance.md "Issue 24 §5") then reads memory, not the file, after its first pass.
      db.exec(`PRAGMA cache_size = -${SQLITE_CACHE_KIB}`)
      if (config.synchronous === "NORMAL") db.exec("PRAGMA synchronous = NORMAL")
    }
    return db
  } catch (cause) {
    db.close()
    throw cause
  }
}

const makeConnection = (db: Database.Database): Connection => {
  const cache = new Map<string, Stmt>()
  const prepare = (sql: string): Stmt => {
    if (hasMultipleStatements(sql)) {
      throw new Error("SQL holds more than one statement; run it with .unprepared and no parameters")
    }
    return db.prepare(sql)
  }
  const prepareCached = (sql: string): Stmt => {
    let stmt = cache.get(sql)
    if (stmt !== undefined) {
      cache.delete(sql)
    } else {
      stmt = prepare(sql)
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!)
    }
    cache.set(sql, stmt)
    return stmt
  }
  const run = (
    sql: string,
    params: ReadonlyArray<unknown>,
    mode: "rows" | "values" | "raw",
    cached: boolean
  ): Effect.Effect<any, SqlError> =>
    Effect.withFiber((fiber) => {
      const bigints = fiber.getRef(SqlClient.SafeIntegers)
      return attempt("execute", () => {
        const stmt = cached ? prepareCached(sql) : prepare(sql)
        const bound = params.map(toParam)
        if (!stmt.reader) {
          const info = stmt.run(bound)
          return mode === "raw" ? { changes: info.changes, lastInsertRowid: fromValue(info.lastInsertRowid, bigints) } : []
        }
        const rows = stmt.safeIntegers(true).raw(mode === "values").all(bound)
        for (const row of rows) normalizeRow(row, bigints)
        return rows
      })
    })
  const withTransform = (
    effect: Effect.Effect<ReadonlyArray<any>, SqlError>,
    transformRows: (<A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined
  ) => transformRows ? Effect.map(effect, transformRows) : effect

  return {
    execute: (sql, params, transformRows) => withTransform(run(sql, params, "rows", true), transformRows),
    executeRaw: (sql, params) => run(sql, params, "raw", true),
    executeValues: (sql, params) => run(sql, params, "values", true),
    executeValuesUnprepared: (sql, params) => run(sql, params, "values", false),
    executeUnprepared: (sql, params, transformRows) =>
      params.length === 0 && hasMultipleStatements(sql)
        ? attempt("exec", () => {
          db.exec(sql)
          return []
        })
        : withTransform(run(sql, params, "rows", false), transformRows),
    executeStream: (sql, params, transformRows) =>
      Stream.fromPull(Effect.withFiber((fiber) => {
        const bigints = fiber.getRef(SqlClient.SafeIntegers)
        return attempt("stream", () => {
          // A fresh statement: resetting a cached one would cut this iterator short.
          const stmt = prepare(sql)
          const bound = params.map(toParam)
          const iterator: Iterator<unknown> = stmt.reader
            ? stmt.safeIntegers(true).iterate(bound)
            : (stmt.run(bound), [][Symbol.iterator]())
          return Effect.suspend((): Pull.Pull<readonly [any, ...Array<any>], SqlError> => {
            const rows: Array<any> = []
            try {
              while (rows.length < STREAM_CHUNK_SIZE) {
                const next = iterator.next()
                if (next.done) break
                rows.push(normalizeRow(next.value, bigints))
              }
            } catch (cause) {
              return Effect.fail(toSqlError(cause, "stream"))
            }
            if (rows.length === 0) return Cause.done()
            return Effect.succeed((transformRows ? transformRows(rows) : rows) as unknown as readonly [any, ...Array<any>])
          })
        })
      }))
  }
}

/**
 * Opens the database and builds a {@link SqliteClient}; the database is closed
 * when the scope closes.
 */
export const make = (
  config: SqliteClientConfig
): Effect.Effect<SqliteClient, SqlError, Scope.Scope | Reactivity.Reactivity> =>
  Effect.gen(function*() {
    const db = yield* Effect.acquireRelease(
      attempt("open", () => open(config)),
      // Checkpoint first: statements still awaiting GC finalization can keep
      // the connection half-open after close(), so this guarantees every
      // committed page is in the main file and the WAL is empty at shutdown.
      (db) =>
        Effect.sync(() => {
          if (!isMemoryFilename(config.filename)) {
            try {
              db.exec("PRAGMA wal_checkpoint(TRUNCATE)")
            } catch {
              // best effort: close() below still releases the handle
            }
          }
          db.close()
        })
    )
    const connection = makeConnection(db)
    const acquirers = SqlClient.makeSqliteAcquirers({
      connection: Effect.succeed(connection),
      semaphore: yield* Semaphore.make(1),
      isTransaction: () => db.inTransaction
    })
    const client = yield* SqlClient.make({
      ...acquirers,
      driver: "sqlite-libsql",
      compiler: Statement.makeCompilerSqlite(),
      prepareTransactionControls: true,
      beginTransaction: "BEGIN IMMEDIATE",
      releaseSavepoint: (name) => `RELEASE SAVEPOINT ${name}`,
      spanAttributes: [
        ...(config.spanAttributes ? Object.entries(config.spanAttributes) : []),
        ["db.system.name", "sqlite"],
        ["db.namespace", config.filename]
      ]
    })
    return Object.assign(client, { config }) as SqliteClient
  })

/**
 * A layer providing {@link SqliteClient} and `SqlClient.SqlClient` for the
 * given database; the database is closed when the layer is released.
 */
export const layer = (config: SqliteClientConfig): Layer.Layer<SqliteClient | SqlClient.SqlClient, SqlError> =>
  Layer.effectContext(
    Effect.map(make(config), (client) =>
      Context.make(SqliteClient, client).pipe(
        Context.add(SqlClient.SqlClient, client)
      ))
  ).pipe(Layer.provide(Reactivity.layer))
