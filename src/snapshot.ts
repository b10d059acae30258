/**
 * `svc-gateway snapshot export|import` (docs/operations.md "Backup and
 * restore"): the `Snapshots` service straight on the configured database
 * (`--home` / `--database-url`, as `serve`), without starting the gateway.
 * Loaded by the CLI only for these commands.
 *
 * - export writes the bundle to `--out` (mode 0600: it holds token digests
 *   and secret ciphertext) or to stdout; logs go to stderr.
 * - export warns on stderr when runs are running or paused (a restore
 *   replays them from their first step: docs/operations.md "Runs in flight").
 * - import reads `--file` and needs `--confirm IMPORT`; it prints the import
 *   summary as JSON. `SVC_SNAPSHOT_IMPORT_ENABLED` guards only the HTTP
 *   route: whoever runs this already holds the database.
 *
 * Failures print `svc-gateway snapshot <command>: <code>: <message>` to
 * stderr and exit 1.
 */
import { Console, Effect, Layer, Logger, References, Result } from "effect"
import { existsSync, mkdirSync } from "node:fs"
import { readFile, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { StorageLive } from "../layers/storage/Storage.ts"
import { errorInfo } from "../services/shared/errors.ts"
import { makeDecoder, parseJsonBody } from "../services/shared/decode.ts"
import { SnapshotImportRequest } from "../services/snapshots/schema.ts"
import { parseTableList, Snapshots } from "../services/snapshots/Snapshots.ts"
import { SnapshotTableSet } from "../services/snapshots/tableSet.ts"
import { GatewayTableSet } from "./app/tables.ts"

/** Where the database is: the `serve` settings that matter here. */
export interface SnapshotTarget {
  readonly home: string
  readonly databaseUrl: string | undefined
}

/** A failure already described to the user (the CLI exits 1). */
export class SnapshotCommandFailed extends Error {}

const sqlitePath = (target: SnapshotTarget) => join(target.home, "gateway.db")

const describe = (error: unknown): string => {
  const info = errorInfo(error)
  const message = (error as { message?: unknown } | null)?.message
  const text = typeof message === "string" ? message : String(error)
  return info === undefined ? text : `${info.code}: ${text}`
}

/** Runs `effect` with the `Snapshots` service on the target database; any failure or defect is printed and fails the command. */
const withSnapshots = <A, E>(command: string, target: SnapshotTarget, effect: Effect.Effect<A, E, Snapshots>) => {
  const storage = StorageLive({ databaseUrl: target.databaseUrl, sqlitePath: sqlitePath(target) })
  return effect.pipe(
    Effect.provide(Snapshots.layerNoDeps.pipe(Layer.provide(storage), Layer.provide(SnapshotTableSet.layer(GatewayTableSet)))),
    Effect.provideService(Logger.LogToStderr, true),
    Effect.provideService(References.MinimumLogLevel, "Warn"),
    Effect.catchCause((cause) =>
      Effect.gen(function*() {
        const failure = cause.reasons.find((r) => r._tag === "Fail" || r._tag === "Die")
        const error = failure === undefined ? "interrupted" : failure._tag === "Fail" ? failure.error : failure.defect
        yield* Console.error(`svc-gateway snapshot ${command}: ${describe(error)}`)
        return yield* Effect.fail(new SnapshotCommandFailed(describe(error)))
      })
    )
  )
}

const fail = (command: string, message: string) =>
  Console.error(`svc-gateway snapshot ${command}: ${message}`).pipe(
    Effect.andThen(Effect.fail(new SnapshotCommandFailed(message)))
  )

/** `snapshot export [--tables a,b] [--out file]`. */
export const exportSnapshot = (target: SnapshotTarget, options: { readonly tables: string | undefined; readonly out: string | undefined }) =>
  Effect.gen(function*() {
    const tables = parseTableList(options.tables)
    if (Result.isFailure(tables)) return yield* fail("export", tables.failure)
    if (target.databaseUrl === undefined && !existsSync(sqlitePath(target))) {
      return yield* fail("export", `no database at ${sqlitePath(target)} (set --home or --database-url)`)
    }
    const bundle = yield* withSnapshots("export", target, Effect.flatMap(Snapshots, (s) => s.exportBundle(tables.success)))
    const inFlight = (bundle.tables.workflow_runs?.rows ?? []).filter((r) => r.status === "running" || r.status === "paused").length
    if (inFlight > 0) {
      yield* Console.error(
        `svc-gateway snapshot export: warning: ${inFlight} workflow run(s) are running or paused; ` +
          "a restore replays them from their first step (docs/operations.md \"Runs in flight\")"
      )
    }
    const text = JSON.stringify(bundle)
    if (options.out === undefined) {
      yield* Effect.promise(() => new Promise<void>((resolve) => process.stdout.write(`${text}\n`, () => resolve())))
      return
    }
    const out = options.out
    yield* Effect.tryPromise({
      try: () => writeFile(out, `${text}\n`, { mode: 0o600 }),
      catch: (error) => error
    }).pipe(Effect.catch((error) => fail("export", `cannot write ${out}: ${(error as Error).message}`)))
    const rows = Object.values(bundle.tables).reduce((n, t) => n + t.rows.length, 0)
    yield* Console.error(`svc-gateway snapshot export: ${rows} rows of ${Object.keys(bundle.tables).length} tables written to ${out}`)
  })

const decodeRequest = makeDecoder(SnapshotImportRequest)

/** `snapshot import --file bundle.json --confirm IMPORT`. */
export const importSnapshot = (target: SnapshotTarget, options: { readonly file: string; readonly confirm: string }) =>
  Effect.gen(function*() {
    const text = yield* Effect.tryPromise({ try: () => readFile(options.file, "utf8"), catch: (error) => error }).pipe(
      Effect.catch((error) => fail("import", `cannot read ${options.file}: ${(error as Error).message}`))
    )
    const parsed = parseJsonBody(text)
    if (Result.isFailure(parsed)) return yield* fail("import", `${options.file}: ${parsed.failure}`)
    const request = decodeRequest({ confirm: options.confirm, bundle: parsed.success })
    if (Result.isFailure(request)) return yield* fail("import", `invalid_request: ${request.failure}`)
    if (target.databaseUrl === undefined) mkdirSync(target.home, { recursive: true, mode: 0o700 })
    const result = yield* withSnapshots("import", target, Effect.flatMap(Snapshots, (s) => s.importBundle(request.success)))
    yield* Console.log(JSON.stringify(result))
  })
