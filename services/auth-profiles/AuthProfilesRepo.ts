/**
 * Auth-profile and session-pin persistence (tables `auth_profiles`,
 * `session_provider_pins`; services/auth-profiles/migrations). Status
 * changes are ONE conditional write each (`UPDATE … WHERE status = … RETURNING *`),
 * so concurrent callers never both win. Rotation and revocation of secret
 * handles are plain UPDATEs on the handle columns, run on whatever
 * transaction the caller (the secret store) has open on the same `SqlClient`.
 * Rows are decoded with {@link AuthProfileRow} / {@link PinRow} (`SqlSchema`),
 * the same on SQLite and PostgreSQL.
 */
import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema, type Statement } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { migrate } from "../../layers/storage/migrations.ts"
import { authProfilesMigrations } from "./migrations/index.ts"
import {
  type AuthProfile,
  type AuthProfileSecretHandles,
  AuthProfileStatus,
  AuthProfileType,
  type SessionProviderPin
} from "./schema.ts"
import { TimestampColumn } from "../../layers/storage/columns.ts"
import { findRows } from "../../layers/storage/rows.ts"
import { repositoryEdge, transactionAtEdge } from "../../layers/storage/repositoryEdge.ts"

/** A stored profile: one column per handle, `labels` as JSON text. */
export const AuthProfileRow = Schema.Struct({
  auth_profile_id: Schema.String,
  agent_id: Schema.String,
  provider: Schema.String,
  type: AuthProfileType,
  api_key_handle: Schema.NullOr(Schema.String),
  access_token_handle: Schema.NullOr(Schema.String),
  refresh_token_handle: Schema.NullOr(Schema.String),
  labels: Schema.NullOr(Schema.fromJsonString(Schema.Record(Schema.String, Schema.String))),
  status: AuthProfileStatus,
  created_at: TimestampColumn,
  updated_at: TimestampColumn,
  disabled_reason: Schema.NullOr(Schema.String)
})
export type AuthProfileRow = typeof AuthProfileRow.Type

/** A stored pin. */
export const PinRow = Schema.Struct({
  agent_id: Schema.String,
  session_id: Schema.String,
  provider: Schema.String,
  auth_profile_id: Schema.String,
  pinned_at: TimestampColumn
})

/** The wire record of a row: handles and labels only when set, `disabled_reason` only when set. */
export const toAuthProfile = (row: AuthProfileRow): AuthProfile => ({
  auth_profile_id: row.auth_profile_id,
  agent_id: row.agent_id,
  provider: row.provider,
  type: row.type,
  secret_handles: {
    ...(row.api_key_handle !== null ? { api_key: row.api_key_handle } : {}),
    ...(row.access_token_handle !== null ? { access_token: row.access_token_handle } : {}),
    ...(row.refresh_token_handle !== null ? { refresh_token: row.refresh_token_handle } : {})
  },
  ...(row.labels !== null ? { labels: row.labels } : {}),
  status: row.status,
  created_at: row.created_at,
  updated_at: row.updated_at,
  ...(row.disabled_reason !== null ? { disabled_reason: row.disabled_reason } : {})
})

/** The row of a wire record. */
export const toRow = (profile: AuthProfile): AuthProfileRow => ({
  auth_profile_id: profile.auth_profile_id,
  agent_id: profile.agent_id,
  provider: profile.provider,
  type: profile.type,
  api_key_handle: profile.secret_handles.api_key ?? null,
  access_token_handle: profile.secret_handles.access_token ?? null,
  refresh_token_handle: profile.secret_handles.refresh_token ?? null,
  labels: profile.labels !== undefined && Object.keys(profile.labels).length > 0 ? profile.labels : null,
  status: profile.status,
  created_at: profile.created_at,
  updated_at: profile.updated_at,
  disabled_reason: profile.disabled_reason ?? null
})

/** Filters of a profile listing. */
export interface AuthProfileFilter {
  readonly agent_id?: string | undefined
  readonly provider?: string | undefined
  readonly status?: AuthProfileStatus | undefined
  readonly type?: AuthProfileType | undefined
}

/** Filters of a pin listing. */
export interface PinFilter {
  readonly agent_id?: string | undefined
  readonly session_id?: string | undefined
  readonly provider?: string | undefined
}

/** The key of a pin. */
export interface PinKey {
  readonly agent_id: string
  readonly session_id: string
  readonly provider: string
}

/** What an update writes (the whole mutable part of the profile). */
export interface AuthProfileWrite {
  readonly type: AuthProfileType
  readonly secret_handles: AuthProfileSecretHandles
  readonly labels: Readonly<Record<string, string>> | undefined
  readonly updated_at: string
}

/** Repository of auth profiles and session pins over `SqlClient` (SQLite and PostgreSQL alike). */
export class AuthProfilesRepo extends Context.Service<AuthProfilesRepo, {
  /** Stores a new profile and returns it. */
  readonly insert: (profile: AuthProfile) => Effect.Effect<AuthProfile>
  /** The profile, or `undefined` when unknown. */
  readonly get: (id: string) => Effect.Effect<AuthProfile | undefined>
  /** Profiles matching `filter`, by `created_at` then id. */
  readonly list: (filter: AuthProfileFilter) => Effect.Effect<ReadonlyArray<AuthProfile>>
  /** Replaces type, handles and labels; `undefined` when unknown. */
  readonly update: (id: string, write: AuthProfileWrite) => Effect.Effect<AuthProfile | undefined>
  /**
   * Moves `id` from `from` to the other status (`disabled` with `reason`;
   * `active` clears the reason). `undefined` when it was not in `from`.
   */
  readonly transition: (
    id: string,
    from: AuthProfileStatus,
    at: string,
    reason?: string | undefined
  ) => Effect.Effect<AuthProfile | undefined>
  /** Points every handle column equal to `oldHandle` at `newHandle`; returns how many profiles changed. */
  readonly repoint: (oldHandle: string, newHandle: string, at: string) => Effect.Effect<number>
  /** Disables every active profile referencing `handle` with `reason`; returns how many. */
  readonly disableReferencing: (handle: string, reason: string, at: string) => Effect.Effect<number>
  /** Sets (inserts or replaces) a pin and returns it. */
  readonly setPin: (pin: SessionProviderPin) => Effect.Effect<SessionProviderPin>
  /** Deletes a pin; `true` when there was one. */
  readonly clearPin: (key: PinKey) => Effect.Effect<boolean>
  /** The pin, or `undefined`. */
  readonly getPin: (key: PinKey) => Effect.Effect<SessionProviderPin | undefined>
  /** Pins matching `filter`, by agent, session, provider. */
  readonly listPins: (filter: PinFilter) => Effect.Effect<ReadonlyArray<SessionProviderPin>>
  /** Runs `effect` in one transaction. */
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}>()("svc-gateway/auth-profiles/AuthProfilesRepo") {
  /** The SQL implementation; needs a `SqlClient` and applies the auth-profiles migrations first. */
  static readonly layer = Layer.effect(
    AuthProfilesRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* migrate("auth_profiles", authProfilesMigrations)

      const decodeRows = findRows(AuthProfileRow)
      const decodePins = findRows(PinRow)
      const encodeRow = Schema.encodeEffect(AuthProfileRow)
      const profiles = (statement: Effect.Effect<ReadonlyArray<unknown>, SqlError>) =>
        Effect.map(decodeRows(statement), (rows) => sortProfiles(rows.map(toAuthProfile)))
      const pins = (statement: Effect.Effect<ReadonlyArray<unknown>, SqlError>) =>
        Effect.map(decodePins(statement), (rows): Array<SessionProviderPin> => [...rows])
      const first = <A>(effect: Effect.Effect<ReadonlyArray<A>, SqlError | Schema.SchemaError>) =>
        Effect.map(effect, (rows) => rows[0])

      const findById = SqlSchema.findOneOption({
        Request: Schema.String,
        Result: AuthProfileRow,
        execute: (id) => sql`SELECT * FROM auth_profiles WHERE auth_profile_id = ${id}`
      })

      const insert = (profile: AuthProfile) =>
        Effect.flatMap(encodeRow(toRow(profile)), (row) =>
          first(profiles(sql`INSERT INTO auth_profiles ${sql.insert(row)} RETURNING *`))).pipe(
            Effect.flatMap((inserted) =>
              inserted === undefined ? Effect.die(new Error("INSERT … RETURNING returned no row")) : Effect.succeed(inserted)
            )
          )

      const list = (filter: AuthProfileFilter) => {
        const clauses: Array<Statement.Fragment> = []
        if (filter.agent_id !== undefined) clauses.push(sql`agent_id = ${filter.agent_id}`)
        if (filter.provider !== undefined) clauses.push(sql`provider = ${filter.provider}`)
        if (filter.status !== undefined) clauses.push(sql`status = ${filter.status}`)
        if (filter.type !== undefined) clauses.push(sql`type = ${filter.type}`)
        const where = clauses.length === 0 ? sql`` : sql`WHERE ${sql.and(clauses)}`
        return profiles(sql`SELECT * FROM auth_profiles ${where} ORDER BY created_at, auth_profile_id`)
      }

      const update = (id: string, write: AuthProfileWrite) => {
        const labels = write.labels !== undefined && Object.keys(write.labels).length > 0 ? JSON.stringify(write.labels) : null
        return first(profiles(sql`UPDATE auth_profiles SET type = ${write.type},
          api_key_handle = ${write.secret_handles.api_key ?? null},
          access_token_handle = ${write.secret_handles.access_token ?? null},
          refresh_token_handle = ${write.secret_handles.refresh_token ?? null},
          labels = ${labels}, updated_at = ${write.updated_at}
          WHERE auth_profile_id = ${id} RETURNING *`))
      }

      const transition = (id: string, from: AuthProfileStatus, at: string, reason?: string) =>
        first(profiles(
          from === "active"
            ? sql`UPDATE auth_profiles SET status = 'disabled', disabled_reason = ${reason ?? null}, updated_at = ${at}
                WHERE auth_profile_id = ${id} AND status = 'active' RETURNING *`
            : sql`UPDATE auth_profiles SET status = 'active', disabled_reason = NULL, updated_at = ${at}
                WHERE auth_profile_id = ${id} AND status = 'disabled' RETURNING *`
        ))

      const repoint = (oldHandle: string, newHandle: string, at: string) =>
        Effect.map(
          sql`UPDATE auth_profiles SET
            api_key_handle = CASE WHEN api_key_handle = ${oldHandle} THEN ${newHandle} ELSE api_key_handle END,
            access_token_handle = CASE WHEN access_token_handle = ${oldHandle} THEN ${newHandle} ELSE access_token_handle END,
            refresh_token_handle = CASE WHEN refresh_token_handle = ${oldHandle} THEN ${newHandle} ELSE refresh_token_handle END,
            updated_at = ${at}
            WHERE api_key_handle = ${oldHandle} OR access_token_handle = ${oldHandle} OR refresh_token_handle = ${oldHandle}
            RETURNING auth_profile_id`,
          (rows) => rows.length
        )

      const disableReferencing = (handle: string, reason: string, at: string) =>
        Effect.map(
          sql`UPDATE auth_profiles SET status = 'disabled', disabled_reason = ${reason}, updated_at = ${at}
            WHERE status = 'active'
              AND (api_key_handle = ${handle} OR access_token_handle = ${handle} OR refresh_token_handle = ${handle})
            RETURNING auth_profile_id`,
          (rows) => rows.length
        )

      const setPin = (pin: SessionProviderPin) =>
        Effect.flatMap(
          first(pins(sql`INSERT INTO session_provider_pins ${sql.insert({ ...pin })}
            ON CONFLICT (agent_id, session_id, provider)
            DO UPDATE SET auth_profile_id = excluded.auth_profile_id, pinned_at = excluded.pinned_at
            RETURNING *`)),
          (stored) => stored === undefined ? Effect.die(new Error("INSERT … RETURNING returned no row")) : Effect.succeed(stored)
        )

      const pinWhere = (key: PinKey) =>
        sql`agent_id = ${key.agent_id} AND session_id = ${key.session_id} AND provider = ${key.provider}`

      const clearPin = (key: PinKey) =>
        Effect.map(
          sql`DELETE FROM session_provider_pins WHERE ${pinWhere(key)} RETURNING agent_id`,
          (rows) => rows.length > 0
        )

      const getPin = (key: PinKey) => first(pins(sql`SELECT * FROM session_provider_pins WHERE ${pinWhere(key)}`))

      const listPins = (filter: PinFilter) => {
        const clauses: Array<Statement.Fragment> = []
        if (filter.agent_id !== undefined) clauses.push(sql`agent_id = ${filter.agent_id}`)
        if (filter.session_id !== undefined) clauses.push(sql`session_id = ${filter.session_id}`)
        if (filter.provider !== undefined) clauses.push(sql`provider = ${filter.provider}`)
        const where = clauses.length === 0 ? sql`` : sql`WHERE ${sql.and(clauses)}`
        return pins(sql`SELECT * FROM session_provider_pins ${where} ORDER BY agent_id, session_id, provider`)
      }

      // A row that does not decode is corrupt storage, not a client's mistake: a defect.

      return AuthProfilesRepo.of(repositoryEdge("AuthProfilesRepo", {
        insert: (profile) => insert(profile),
        get: (id) => Effect.map(findById(id), (o) => (o._tag === "Some" ? toAuthProfile(o.value) : undefined)),
        list: (filter) => list(filter),
        update: (id, write) => update(id, write),
        transition: (id, from, at, reason) => transition(id, from, at, reason),
        repoint,
        disableReferencing,
        setPin: (pin) => setPin(pin),
        clearPin,
        getPin: (key) => getPin(key),
        listPins: (filter) => listPins(filter),
        transaction: transactionAtEdge(sql.withTransaction)
      }))
    })
  )
}

/** `RETURNING` gives no order: sort by `created_at`, then id. */
const sortProfiles = (list: Array<AuthProfile>): Array<AuthProfile> =>
  list.sort((a, b) =>
    a.created_at < b.created_at
      ? -1
      : a.created_at > b.created_at
      ? 1
      : a.auth_profile_id < b.auth_profile_id
      ? -1
      : a.auth_profile_id > b.auth_profile_id
      ? 1
      : 0
  )
