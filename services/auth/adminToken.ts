/**
 * Admin token resolution (design.md "Security defaults"; reference §2.1):
 * `SVC_ADMIN_TOKEN` when set, else the file `$SVC_HOME/admin-token`, generated
 * on first start (32 random bytes as 64 hex characters, file mode 0600).
 * The token value is never logged; only where it came from.
 */
import { Effect, FileSystem, Option, Path, Redacted } from "effect"
import { AdminTokenError } from "./errors.ts"
import { generateAdminToken } from "./tokenCrypto.ts"

/** Where the admin token came from: the environment, an existing file, or a file written now. */
export type AdminTokenSource = "environment" | "file" | "generated"

/** The resolved admin token and its provenance (for the start log). */
export interface ResolvedAdminToken {
  readonly token: Redacted.Redacted<string>
  readonly source: AdminTokenSource
  /** The token file, when the token lives in one. */
  readonly path: string | undefined
}

/** File name of the admin token under `$SVC_HOME`. */
export const ADMIN_TOKEN_FILE = "admin-token"

/**
 * Resolves the admin token. `configured` (from `SVC_ADMIN_TOKEN` / `--admin-token`)
 * wins; otherwise reads `<home>/admin-token`, creating `home` and the file
 * (mode 0600) when missing. An empty file is an error (fail closed).
 */
export const resolveAdminToken = Effect.fn("resolveAdminToken")(function*(options: {
  readonly configured: Option.Option<Redacted.Redacted<string>>
  readonly home: string
}) {
  if (Option.isSome(options.configured)) {
    return { token: options.configured.value, source: "environment", path: undefined } satisfies ResolvedAdminToken as ResolvedAdminToken
  }
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const file = path.join(options.home, ADMIN_TOKEN_FILE)
  const fail = (what: string) => (cause: unknown) =>
    new AdminTokenError({ message: `cannot ${what} admin token file ${file}: ${String((cause as Error)?.message ?? cause)}` })
  const exists = yield* fs.exists(file).pipe(Effect.mapError(fail("check")))
  if (exists) {
    const text = (yield* fs.readFileString(file).pipe(Effect.mapError(fail("read")))).trim()
    if (text.length === 0) {
      return yield* new AdminTokenError({ message: `admin token file ${file} is empty; delete it to generate a new token` })
    }
    return { token: Redacted.make(text), source: "file", path: file } satisfies ResolvedAdminToken as ResolvedAdminToken
  }
  yield* fs.makeDirectory(options.home, { recursive: true, mode: 0o700 }).pipe(Effect.mapError(fail("create the directory of the")))
  const token = generateAdminToken()
  yield* fs.writeFileString(file, token + "\n", { mode: 0o600, flag: "wx" }).pipe(Effect.mapError(fail("write")))
  yield* fs.chmod(file, 0o600).pipe(Effect.mapError(fail("set permissions on")))
  return { token: Redacted.make(token), source: "generated", path: file } satisfies ResolvedAdminToken as ResolvedAdminToken
})
