/**
 * A session's settings that slash commands change (`agent_session_settings`,
 * migrations/0002_session_settings.ts): its queue mode (`/queue`) and
 * outbound send policy (`/send`), `null` when not set. Over `SqlClient`, the
 * same on SQLite and PostgreSQL.
 *
 * @module
 */
import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { TimestampColumn } from "../../layers/storage/columns.ts"
import { migrate } from "../../layers/storage/migrations.ts"
import { repositoryEdge } from "../../layers/storage/repositoryEdge.ts"
import { findRows } from "../../layers/storage/rows.ts"
import { agentMigrations } from "./migrations/index.ts"
import { QueueMode, SendPolicy } from "./schema.ts"

/** A session settings row (`null`: not set, the default applies). */
export const AgentSessionSettingsRow = Schema.Struct({
  session_id: Schema.String,
  queue_mode: Schema.NullOr(QueueMode),
  send_policy: Schema.NullOr(SendPolicy),
  updated_at: TimestampColumn
})
export type AgentSessionSettingsRow = typeof AgentSessionSettingsRow.Type

/** What a change sets (an absent field keeps its value). */
export interface SessionSettingsChange {
  readonly queue_mode?: QueueMode
  readonly send_policy?: SendPolicy
}

/** Repository of per-session settings. */
export class SessionSettingsRepo extends Context.Service<SessionSettingsRepo, {
  /** The session's settings, or `undefined` when none was ever set. */
  readonly get: (sessionId: string) => Effect.Effect<AgentSessionSettingsRow | undefined>
  /** Sets the fields of `change` (creating the row), stamped `updatedAt` (ISO-8601 UTC); answers the stored row. */
  readonly set: (sessionId: string, change: SessionSettingsChange, updatedAt: string) => Effect.Effect<AgentSessionSettingsRow>
}>()("svc-gateway/agent/SessionSettingsRepo") {
  /** The SQL implementation; needs a `SqlClient` and applies the agent migrations first. */
  static readonly layer = Layer.effect(
    SessionSettingsRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* migrate("agent", agentMigrations)
      const rows = findRows(AgentSessionSettingsRow)
      const get = (sessionId: string) =>
        Effect.map(rows(sql`SELECT * FROM agent_session_settings WHERE session_id = ${sessionId}`), (found) => found[0])
      return SessionSettingsRepo.of(repositoryEdge("SessionSettingsRepo", {
        get,
        set: (sessionId, change, updatedAt) =>
          Effect.gen(function*() {
            const fields = { ...change, updated_at: updatedAt }
            yield* sql`INSERT INTO agent_session_settings ${
              sql.insert({ session_id: sessionId, queue_mode: null, send_policy: null, ...fields })
            } ON CONFLICT (session_id) DO UPDATE SET ${sql.update(fields)}`
            const stored = yield* get(sessionId)
            return stored!
          })
      }))
    })
  )
}
