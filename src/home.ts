/**
 * The start-up check of `SVC_HOME` (`svc-gateway serve`, before anything is
 * opened): when the gateway will write there, the directory is created if
 * missing (mode 0700) and proven writable by creating and removing a probe
 * file, so an unusable home is one clear line instead of a SQLite open error.
 * (A probe rather than `access(W_OK)`: it also catches a read-only mount and
 * holds for root, which permission bits do not stop.)
 */
import { Effect, FileSystem, Path, PlatformError, Schema } from "effect"
import { randomBytes } from "node:crypto"
import type { GatewaySettings } from "../layers/config.ts"

/** `SVC_HOME` cannot hold the gateway's files. `message` is the line the CLI prints. */
export class HomeNotWritable extends Schema.TaggedError<HomeNotWritable>()("HomeNotWritable", {
  message: Schema.String,
  path: Schema.String
}) {}

/**
 * The files the gateway writes under `home` with these settings: the SQLite
 * database, the generated admin token and the `db` provider's master key.
 * Empty: the home is only read (it may then be read-only or missing).
 */
export const homeWrites = (settings: GatewaySettings): ReadonlyArray<string> => [
  ...(settings.databaseUrl === undefined ? ["gateway.db"] : []),
  ...(settings.adminToken === undefined ? ["admin-token"] : []),
  ...(settings.secretProvider === "db" && settings.secretsMasterKeyPath === undefined ? ["secrets.master.key"] : [])
]

/** The system's own words (`EACCES: permission denied, mkdir '/srv/svc'`), else the error's kind. */
const why = (error: PlatformError.PlatformError): string => {
  const cause = error.reason.cause as { readonly message?: unknown } | undefined
  return typeof cause?.message === "string" ? cause.message : error.reason.message
}

/**
 * Creates `settings.home` if missing (mode 0700) and checks that a file can
 * be created in it, when {@link homeWrites} is not empty.
 *
 * @throws HomeNotWritable `SVC_HOME <path> is not writable (<reason>); it holds <files>`
 */
export const prepareHome = Effect.fn("prepareHome")(function*(settings: GatewaySettings) {
  const writes = homeWrites(settings)
  if (writes.length === 0) return
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const home = settings.home
  const fail = (reason: string) =>
    new HomeNotWritable({ path: home, message: `SVC_HOME ${home} is not writable (${reason}); it holds ${writes.join(", ")}` })
  const existing = yield* fs.stat(home).pipe(
    Effect.map((info) => info.type),
    Effect.catchIf((error) => error.reason._tag === "NotFound", () => Effect.succeed(undefined)),
    Effect.mapError((error) => fail(why(error)))
  )
  if (existing === undefined) {
    yield* fs.makeDirectory(home, { recursive: true, mode: 0o700 }).pipe(Effect.mapError((error) => fail(why(error))))
  } else if (existing !== "Directory") {
    return yield* fail("it is not a directory")
  }
  const probe = path.join(home, `.write-probe-${randomBytes(6).toString("hex")}`)
  yield* fs.writeFileString(probe, "", { flag: "wx", mode: 0o600 }).pipe(Effect.mapError((error) => fail(why(error))))
  yield* fs.remove(probe).pipe(Effect.ignore)
})
