/**
 * Admin token resolution (design.md "Security defaults"; reference §2.1):
 * `SVC_ADMIN_TOKEN` when set, else the file `$SVC_HOME/admin-token`, generated
 * on first start (32 random bytes as 64 hex characters, file mode 0600,
 * written atomically).
 * The token value is never logged; only where it came from.
 */
import { Effect, FileSystem, Option, Path, Redacted } from "effect"
import { writePrivateFile } from "../shared/privateFile.ts"
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
 * wins; otherwise reads `<home>/admin-token`, creating `home` (mode 0700) and
 * the file (mode 0600) when missing. The file is written whole or not at all
 * (services/shared/privateFile.ts, create mode: a concurrent start reads the
 * token that won). A zero-length file is what an interrupted write of an
 * older version left: it is replaced by a new token (with a warning). A file
 * holding only whitespace is an error naming the file (fail closed).
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
  const read = Effect.gen(function*() {
    const text = (yield* fs.readFileString(file).pipe(Effect.mapError(fail("read")))).trim()
    if (text.length === 0) {
      return yield* new AdminTokenError({ message: `admin token file ${file} is empty; delete it to generate a new token` })
    }
    return { token: Redacted.make(text), source: "file", path: file } satisfies ResolvedAdminToken as ResolvedAdminToken
  })
  const existing = yield* fs.stat(file).pipe(
    Effect.map(Option.some),
    Effect.catchIf((error) => error.reason._tag === "NotFound", () => Effect.succeed(Option.none())),
    Effect.mapError(fail("check"))
  )
  if (Option.isSome(existing)) {
    if (existing.value.size > 0) return yield* read
    yield* Effect.logWarning("the admin token file is empty (left by an interrupted start); generating a new token").pipe(
      Effect.annotateLogs({ path: file })
    )
    yield* fs.remove(file).pipe(Effect.mapError(fail("replace the empty")))
  }
  const token = generateAdminToken()
  const written = yield* Effect.tryPromise({ try: () => writePrivateFile(file, token + "\n", "create"), catch: fail("write") })
  // Another process created the file first: its token is the one.
  if (!written) return yield* read
  return { token: Redacted.make(token), source: "generated", path: file } satisfies ResolvedAdminToken as ResolvedAdminToken
})
