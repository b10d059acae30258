/**
 * PostgreSQL `SqlClient` layer built from a connection URL, via
 * `@effect/sql-pg` (pooled, native wire protocol).
 *
 * @since 0.1.0
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import type * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import type * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"

/**
 * Settings for {@link layer}.
 *
 * - `url`: `postgres://` or `postgresql://` URL; it may carry a password,
 *   which is kept `Redacted`.
 * - `searchPath`: optional `search_path` for every connection (e.g. an
 *   isolated schema for tests).
 * - `maxConnections`: pool size (sql-pg default: 10).
 * - `applicationName`: reported to the server (default `"svc-gateway"`).
 */
export interface PgClientOptions {
  readonly url: string
  readonly searchPath?: string | undefined
  readonly maxConnections?: number | undefined
  readonly applicationName?: string | undefined
}

/**
 * A layer providing `PgClient.PgClient` and `SqlClient.SqlClient` from a
 * connection URL. Connections open lazily; the pool closes with the layer.
 */
export const layer = (
  options: PgClientOptions
): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, SqlError> =>
  PgClient.layer({
    url: Redacted.make(options.url),
    applicationName: options.applicationName ?? "svc-gateway",
    maxConnections: options.maxConnections,
    startupParameters: options.searchPath === undefined ? undefined : { search_path: options.searchPath }
  })

/**
 * Returns the URL without its password (in the user-info part or a
 * `password` query parameter), for logs and diagnostics. Unparsable input
 * yields `"<invalid url>"` so a secret can never leak through it.
 */
export const redactUrl = (url: string): string => {
  try {
    const parsed = new URL(url)
    parsed.password = ""
    parsed.searchParams.delete("password")
    return parsed.toString()
  } catch {
    return "<invalid url>"
  }
}
