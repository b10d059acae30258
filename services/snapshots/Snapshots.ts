/**
 * Snapshots (gateway-api.md "Snapshots"; docs/operations.md "Backup and
 * restore", "Moving from SQLite to PostgreSQL"): export every
 * table of the snapshot set (services/snapshots/tableSet.ts, derived by the
 * root from the subsystems' table declarations) as a portable bundle, and import a
 * bundle into empty tables, on either database. Used by `GET
 * /snapshot/export`, `POST /snapshot/import` and `svc-gateway snapshot`.
 *
 * - Export reads every table in one transaction (PostgreSQL: REPEATABLE READ,
 *   READ ONLY), rows in primary-key order, values in their portable form
 *   (services/snapshots/values.ts).
 * - Import checks the whole bundle first (format, tables, columns, every
 *   value: 400 naming the first problem), then, in one transaction, refuses
 *   unless every target table is empty (500 `import_refused`), inserts in
 *   registry order with bound parameters and repairs the id counters. Any
 *   failure rolls everything back; a row the database rejects (a duplicated
 *   key, a failed CHECK) is a 400 naming the table.
 * - Both first apply the migrations of every registered table (a no-op on a
 *   running gateway), so the CLI works on a fresh database too.
 *
 * @module
 */
import { Clock, Context, Effect, Layer, Semaphore } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import { isSqlError, type SqlError } from "effect/sql/SqlError"
import { GATEWAY_VERSION } from "../../layers/config.ts"
import { migrate } from "../../layers/storage/migrations.ts"
import { DatabaseInfo } from "../../layers/storage/Storage.ts"
import { isoTime } from "../shared/time.ts"
import { ImportRefused, InvalidRequest, type SnapshotExportFailed } from "./errors.ts"
import type { SnapshotTable } from "../../layers/storage/table.ts"
import {
  IMPORT_CONFIRMATION,
  SNAPSHOT_FORMAT,
  type SnapshotBundle,
  type SnapshotImportRequest,
  type SnapshotImportResponse,
  type SnapshotTableData
} from "./schema.ts"
import { clip, type PreparedTable, portableTable, prepareTable, unknownTables } from "./rows.ts"
import { SnapshotTableSet, snapshotTable } from "./tableSet.ts"
import * as TableSql from "./tableSql.ts"

export { parseTableList } from "./rows.ts"

/** The snapshot service. Storage failures are defects (500 `internal_error`). */
export class Snapshots extends Context.Service<Snapshots, {
  /**
   * The bundle of `tables` (registered names; default: every registered
   * table). An unknown name: `InvalidRequest` "unknown table '<t>'". A stored
   * value that does not fit its column kind: `SnapshotExportFailed`.
   */
  readonly exportBundle: (tables?: ReadonlyArray<string>) => Effect.Effect<SnapshotBundle, InvalidRequest | SnapshotExportFailed>
  /**
   * Imports a bundle (all or nothing). A wrong `confirm`, an unknown format,
   * table or column, a value that does not fit its column, or rows the
   * database rejects: `InvalidRequest`. A non-empty target table:
   * `ImportRefused`.
   */
  readonly importBundle: (request: SnapshotImportRequest) => Effect.Effect<SnapshotImportResponse, InvalidRequest | ImportRefused>
}>()("svc-gateway/snapshots/Snapshots") {
  /** Needs `SqlClient`, `DatabaseInfo` and the {@link SnapshotTableSet}. */
  static readonly layerNoDeps = Layer.effect(Snapshots, Effect.gen(function*() {
    const set = yield* SnapshotTableSet
    const carried = set.tables
    const sql = yield* SqlClient.SqlClient
    const db = yield* DatabaseInfo
    const dialect = db.kind
    const migrated = { done: false }
    const lock = yield* Semaphore.make(1)

    /** Applies every registered table's migrations once (their own bookkeeping makes this a no-op when done). */
    const ensureTables = lock.withPermits(1)(Effect.gen(function*() {
      if (migrated.done) return
      const seen = new Set<string>()
      for (const { owner } of carried) {
        if (seen.has(owner.subsystem)) continue
        seen.add(owner.subsystem)
        yield* migrate(owner.subsystem, owner.migrations)
      }
      migrated.done = true
    })).pipe(Effect.provideService(SqlClient.SqlClient, sql), Effect.orDie)

    /** The database's columns of each table; a mismatch with the registry is a defect (the registry is out of date). */
    const targetColumns = (tables: ReadonlyArray<SnapshotTable>) =>
      Effect.gen(function*() {
        const notNull = new Map<string, ReadonlySet<string>>()
        for (const table of tables) {
          const actual = yield* TableSql.columnsOf(sql, dialect, table.name)
          const names = new Set(actual.map((c) => c.name))
          const registered = new Set(table.columns.map((c) => c.name))
          const missing = [...registered].filter((c) => !names.has(c))
          const extra = [...names].filter((c) => !registered.has(c))
          if (missing.length > 0 || extra.length > 0) {
            return yield* Effect.die(new Error(
              `snapshot registry is out of date for table ${table.name}: ` +
                `not in the database: [${missing.join(", ")}], not registered: [${extra.join(", ")}]`
            ))
          }
          notNull.set(table.name, new Set(actual.filter((c) => c.notNull).map((c) => c.name)))
        }
        return notNull
      }).pipe(Effect.orDie)

    const resolveTables = (names: ReadonlyArray<string> | undefined) => {
      if (names === undefined) return Effect.succeed(carried)
      const unknown = names.filter((n) => snapshotTable(set, n) === undefined)
      if (unknown.length > 0) return Effect.fail(new InvalidRequest({ message: unknownTables(unknown) }))
      const wanted = new Set(names)
      return Effect.succeed(carried.filter((t) => wanted.has(t.name)))
    }

    const exportBundle = Effect.fn("Snapshots.export")(function*(names?: ReadonlyArray<string>) {
      const tables = yield* resolveTables(names)
      yield* ensureTables
      yield* targetColumns(tables)
      const read = yield* sql.withTransaction(Effect.gen(function*() {
        yield* TableSql.consistentRead(sql, dialect)
        const out: Array<readonly [SnapshotTable, ReadonlyArray<Record<string, unknown>>]> = []
        for (const table of tables) out.push([table, yield* TableSql.readRows(sql, table)])
        return out
      })).pipe(Effect.orDie)
      const exported: Record<string, SnapshotTableData> = {}
      for (const [table, rows] of read) exported[table.name] = yield* portableTable(table, rows)
      return {
        format: SNAPSHOT_FORMAT,
        exported_at: isoTime(yield* Clock.currentTimeMillis),
        gateway_version: GATEWAY_VERSION,
        db_kind: dialect,
        tables: exported
      } satisfies SnapshotBundle as SnapshotBundle
    })

    const importBundle = Effect.fn("Snapshots.import")(function*(request: SnapshotImportRequest) {
      if (request.confirm !== IMPORT_CONFIRMATION) {
        return yield* new InvalidRequest({ message: `confirm: expected "${IMPORT_CONFIRMATION}" to confirm the import` })
      }
      const bundle = request.bundle
      if (bundle.format !== SNAPSHOT_FORMAT) {
        return yield* new InvalidRequest({
          message: `bundle.format: unknown format '${clip(bundle.format)}'; this gateway reads ${SNAPSHOT_FORMAT}`
        })
      }
      const tables = yield* resolveTables(Object.keys(bundle.tables))
      yield* ensureTables
      const notNull = yield* targetColumns(tables)
      const prepared: Array<PreparedTable> = []
      for (const table of tables) {
        prepared.push(yield* prepareTable(table, bundle.tables[table.name]!, notNull.get(table.name)!, dialect))
      }

      const inserted_by_table: Record<string, number> = {}
      yield* sql.withTransaction(Effect.gen(function*() {
        yield* TableSql.lockTables(sql, dialect, tables.map((t) => t.name))
        yield* refuseUnlessEmpty(tables)
        for (const { table, columns, rows } of prepared) {
          yield* TableSql.insertRows(sql, dialect, table, columns, rows).pipe(
            Effect.catchIf(isRowRejection, (error) =>
              Effect.fail(new InvalidRequest({
                message: `bundle.tables.${table.name}: the database rejected its rows: ${rejection(error)}`
              })))
          )
          inserted_by_table[table.name] = rows.length
        }
        for (const { table } of prepared) yield* TableSql.repairSerial(sql, dialect, table)
      })).pipe(Effect.catchIf(isSqlError, Effect.die))

      const inserted_total = Object.values(inserted_by_table).reduce((a, b) => a + b, 0)
      yield* Effect.logInfo("snapshot imported").pipe(Effect.annotateLogs({ tables: tables.length, inserted_total }))
      return {
        status: "ok",
        imported_at: isoTime(yield* Clock.currentTimeMillis),
        format: SNAPSHOT_FORMAT,
        tables: tables.map((t) => t.name),
        inserted_total,
        inserted_by_table
      } satisfies SnapshotImportResponse as SnapshotImportResponse
    })

    /**
     * Fails with `ImportRefused` naming the target tables that hold rows. A
     * table the gateway fills at start (`writtenAtStart`) is emptied instead
     * when every other registered table is empty: the target is a freshly
     * started gateway, and nothing refers to those rows yet.
     */
    const refuseUnlessEmpty = (tables: ReadonlyArray<SnapshotTable>) =>
      Effect.gen(function*() {
        const occupied: Array<SnapshotTable> = []
        for (const table of tables) if (yield* TableSql.hasRows(sql, table.name)) occupied.push(table)
        if (occupied.length === 0) return
        const blocking = occupied.filter((t) => !t.writtenAtStart)
        let fresh = blocking.length === 0
        if (fresh) {
          for (const other of carried) {
            if (other.writtenAtStart) continue
            if (yield* TableSql.hasRows(sql, other.name)) {
              fresh = false
              break
            }
          }
        }
        if (!fresh) {
          return yield* new ImportRefused({
            message: `import refused: the target tables ${occupied.map((t) => t.name).join(", ")} are not empty ` +
              "(an import only fills empty tables; nothing was imported)"
          })
        }
        for (const table of occupied) yield* TableSql.deleteRows(sql, table.name)
      })

    return Snapshots.of({ exportBundle, importBundle })
  }))

  /** {@link layerNoDeps}: it needs only the storage and the root's {@link SnapshotTableSet}. */
  static readonly layer = Snapshots.layerNoDeps
}

/** A row the database refused: a unique key taken twice, a CHECK or NOT NULL failed. */
const isRowRejection = (error: SqlError): boolean =>
  error.reason._tag === "UniqueViolation" || error.reason._tag === "ConstraintError"

/**
 * The database's reason (e.g. `duplicate key value violates unique constraint
 * "approvals_pkey"`): its primary message only, which names the constraint
 * but no value (PostgreSQL keeps values in the error's detail).
 */
const rejection = (error: SqlError): string => {
  const inner = error.reason.cause
  const detail = typeof inner === "object" && inner !== null && typeof (inner as { message?: unknown }).message === "string"
    ? (inner as { message: string }).message
    : ""
  return detail !== "" && !error.message.includes(detail) ? detail : error.message
}
