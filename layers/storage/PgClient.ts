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

export { redactUrl } from "./redactUrl.ts"
