/**
 * Pairing persistence (table `node_pairings`, services/pairing/migrations).
 * Every transition is ONE conditional write (`UPDATE … WHERE pairing_id = …
 * AND status … RETURNING *`), so concurrent operators (HTTP and WS alike)
 * never both win: the database decides. Creation on connect is conditional
 * too (refresh, else reopen, else insert-if-absent), so two connections of
 * the same node never create two pairings. Only the SHA-256 digest of a
 * scoped token is stored. Rows are decoded with {@link PairingRow}
 * (`SqlSchema`), the same on SQLite and PostgreSQL.
 */
import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { migrate } from "../../layers/storage/migrations.ts"
import { CapabilityDescriptor } from "../ws-sessions/schema.ts"
import { pairingMigrations } from "./migrations/index.ts"
import { type Pairing, PairingResolvedBy, PairingStatus, type TrustLevel, TrustLevel as TrustLevelSchema } from "./schema.ts"
import { serialColumn, TimestampColumn } from "../../layers/storage/columns.ts"
import { findRows } from "../../layers/storage/rows.ts"
import { repositoryEdge } from "../../layers/storage/repositoryEdge.ts"

/** A stored pairing. JSON columns are text; `token_digest` is the scoped token's SHA-256 hex, set only while approved. */
export const PairingRow = Schema.Struct({
  pairing_id: serialColumn(Schema.Int),
  node_id: Schema.String,
  status: PairingStatus,
  trust_level: Schema.NullOr(TrustLevelSchema),
  label: Schema.NullOr(Schema.String),
  capabilities: Schema.fromJsonString(Schema.Array(CapabilityDescriptor)),
  metadata: Schema.NullOr(Schema.fromJsonString(Schema.Unknown)),
  capability_allowlist: Schema.fromJsonString(Schema.Array(CapabilityDescriptor)),
  requested_at: TimestampColumn,
  last_seen_at: TimestampColumn,
  resolved_at: Schema.NullOr(TimestampColumn),
  resolved_by: Schema.NullOr(Schema.fromJsonString(PairingResolvedBy)),
  reason: Schema.NullOr(Schema.String),
  token_digest: Schema.NullOr(Schema.String)
})
export type PairingRow = typeof PairingRow.Type

/** The wire record of a row: never the token digest; the resolution from the terminal columns. */
export const toPairing = (row: PairingRow): Pairing => ({
  pairing_id: row.pairing_id,
  status: row.status,
  trust_level: row.trust_level,
  requested_at: row.requested_at,
  node: {
    node_id: row.node_id,
    ...(row.label !== null ? { label: row.label } : {}),
    capabilities: row.capabilities,
    last_seen_at: row.last_seen_at,
    ...(row.metadata !== null ? { metadata: row.metadata } : {})
  },
  capability_allowlist: row.capability_allowlist,
  resolution: row.status === "pending" ? null : {
    decision: row.status,
    resolved_at: row.resolved_at ?? row.requested_at,
    ...(row.reason !== null ? { reason: row.reason } : {}),
    ...(row.resolved_by !== null ? { resolved_by: row.resolved_by } : {})
  },
  resolved_at: row.status === "pending" ? null : row.resolved_at ?? row.requested_at
})

/** What a node's connection tells about it (connect.init and the socket), at `at`. */
export interface NodeSeen {
  readonly nodeId: string
  readonly label: string | undefined
  readonly capabilities: ReadonlyArray<CapabilityDescriptor>
  /** Connection metadata (`platform`, `version`, `mode`, `ip`); `undefined` when there is none. */
  readonly metadata: Readonly<Record<string, string>> | undefined
  readonly at: string
}

/** A resolution to write. */
export interface PairingDecisionWrite {
  readonly at: string
  readonly by: PairingResolvedBy
  readonly reason: string | undefined
}

/** An approval to write: the decision, its terms and the new token's digest. */
export interface PairingApprovalWrite extends PairingDecisionWrite {
  readonly trustLevel: TrustLevel
  readonly allowlist: ReadonlyArray<CapabilityDescriptor>
  readonly tokenDigest: string
}

/** The approved pairing a token digest belongs to. */
export interface TokenOwner {
  readonly pairingId: number
  readonly nodeId: string
  readonly tokenDigest: string
}

/** Repository of pairings over `SqlClient` (SQLite and PostgreSQL alike). */
export class PairingsRepo extends Context.Service<PairingsRepo, {
  /** The pairing, or `undefined` when unknown. */
  readonly get: (pairingId: number) => Effect.Effect<Pairing | undefined>
  /** The pairing of `nodeId`, or `undefined`. */
  readonly findByNode: (nodeId: string) => Effect.Effect<Pairing | undefined>
  /** Pairings (with `status` when given), newest first: `requested_at`, then `pairing_id`, descending. */
  readonly list: (status?: PairingStatus | undefined) => Effect.Effect<ReadonlyArray<Pairing>>
  /**
   * Refreshes label, capabilities, metadata and `last_seen_at` of the node's
   * pairing if it is pending or approved (only approved under
   * `approvedPairingId` when given); `undefined` when it was not.
   */
  readonly refresh: (seen: NodeSeen, approvedPairingId?: number | undefined) => Effect.Effect<Pairing | undefined>
  /**
   * Moves the node's denied or revoked pairing back to pending (requested now;
   * trust level, allowlist, resolution and token cleared) and refreshes it;
   * `undefined` when it was not denied or revoked.
   */
  readonly reopen: (seen: NodeSeen) => Effect.Effect<Pairing | undefined>
  /** Creates the node's pending pairing; `undefined` when the node already has one. */
  readonly insertPending: (seen: NodeSeen) => Effect.Effect<Pairing | undefined>
  /** pending → approved with its terms and token digest; `undefined` when not pending. */
  readonly approve: (pairingId: number, write: PairingApprovalWrite) => Effect.Effect<Pairing | undefined>
  /** Replaces the token digest of an approved pairing; `undefined` when it is not approved. */
  readonly rotateToken: (pairingId: number, tokenDigest: string) => Effect.Effect<Pairing | undefined>
  /** pending → denied; `undefined` when not pending. */
  readonly deny: (pairingId: number, write: PairingDecisionWrite) => Effect.Effect<Pairing | undefined>
  /** any but revoked → revoked, token cleared (trust level and allowlist kept); `undefined` when unknown or already revoked. */
  readonly revoke: (pairingId: number, write: PairingDecisionWrite) => Effect.Effect<Pairing | undefined>
  /** The approved pairing whose token digest is `digest`, or `undefined`. */
  readonly findApprovedByTokenDigest: (digest: string) => Effect.Effect<TokenOwner | undefined>
}>()("svc-gateway/pairing/PairingsRepo") {
  /** The SQL implementation; needs a `SqlClient` and applies the pairing migrations first. */
  static readonly layer = Layer.effect(
    PairingsRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* migrate("pairing", pairingMigrations)

      const InsertRow = PairingRow.mapFields(({ pairing_id: _, ...fields }) => fields)
      const insert = SqlSchema.findOneOption({
        Request: InsertRow,
        Result: PairingRow,
        execute: (row) => sql`INSERT INTO node_pairings ${sql.insert(row)} ON CONFLICT (node_id) DO NOTHING RETURNING *`
      })
      const decodeRows = findRows(PairingRow)
      const rows = (statement: Effect.Effect<ReadonlyArray<unknown>, SqlError>) =>
        Effect.map(decodeRows(statement), (decoded) => decoded.map(toPairing))
      const one = (statement: Effect.Effect<ReadonlyArray<unknown>, SqlError>) =>
        Effect.map(rows(statement), (found) => found[0])

      const json = (value: unknown) => JSON.stringify(value)
      const metadataOf = (seen: NodeSeen) => (seen.metadata === undefined ? null : json(seen.metadata))

      const refresh = (seen: NodeSeen, approvedPairingId?: number) => {
        const condition = approvedPairingId === undefined
          ? sql`status IN ('pending', 'approved')`
          : sql`status = 'approved' AND pairing_id = ${approvedPairingId}`
        return one(sql`UPDATE node_pairings SET label = ${seen.label ?? null}, capabilities = ${json(seen.capabilities)},
          metadata = ${metadataOf(seen)}, last_seen_at = ${seen.at}
          WHERE node_id = ${seen.nodeId} AND ${condition} RETURNING *`)
      }

      const reopen = (seen: NodeSeen) =>
        one(sql`UPDATE node_pairings SET status = 'pending', trust_level = NULL, capability_allowlist = '[]',
          requested_at = ${seen.at}, resolved_at = NULL, resolved_by = NULL, reason = NULL, token_digest = NULL,
          label = ${seen.label ?? null}, capabilities = ${json(seen.capabilities)}, metadata = ${metadataOf(seen)},
          last_seen_at = ${seen.at}
          WHERE node_id = ${seen.nodeId} AND status IN ('denied', 'revoked') RETURNING *`)

      const insertPending = (seen: NodeSeen) =>
        Effect.map(
          insert({
            node_id: seen.nodeId,
            status: "pending",
            trust_level: null,
            label: seen.label ?? null,
            capabilities: seen.capabilities,
            metadata: seen.metadata ?? null,
            capability_allowlist: [],
            requested_at: seen.at,
            last_seen_at: seen.at,
            resolved_at: null,
            resolved_by: null,
            reason: null,
            token_digest: null
          }),
          (o) => (o._tag === "Some" ? toPairing(o.value) : undefined)
        )

      const approve = (pairingId: number, write: PairingApprovalWrite) =>
        one(sql`UPDATE node_pairings SET status = 'approved', trust_level = ${write.trustLevel},
          capability_allowlist = ${json(write.allowlist)}, token_digest = ${write.tokenDigest},
          resolved_at = ${write.at}, resolved_by = ${json(write.by)}, reason = ${write.reason ?? null}
          WHERE pairing_id = ${pairingId} AND status = 'pending' RETURNING *`)

      const rotateToken = (pairingId: number, tokenDigest: string) =>
        one(sql`UPDATE node_pairings SET token_digest = ${tokenDigest}
          WHERE pairing_id = ${pairingId} AND status = 'approved' RETURNING *`)

      const deny = (pairingId: number, write: PairingDecisionWrite) =>
        one(sql`UPDATE node_pairings SET status = 'denied', token_digest = NULL,
          resolved_at = ${write.at}, resolved_by = ${json(write.by)}, reason = ${write.reason ?? null}
          WHERE pairing_id = ${pairingId} AND status = 'pending' RETURNING *`)

      const revoke = (pairingId: number, write: PairingDecisionWrite) =>
        one(sql`UPDATE node_pairings SET status = 'revoked', token_digest = NULL,
          resolved_at = ${write.at}, resolved_by = ${json(write.by)}, reason = ${write.reason ?? null}
          WHERE pairing_id = ${pairingId} AND status <> 'revoked' RETURNING *`)

      const TokenRow = Schema.Struct({ pairing_id: Schema.Int, node_id: Schema.String, token_digest: Schema.String })
      const findByDigest = SqlSchema.findOneOption({
        Request: Schema.String,
        Result: TokenRow,
        execute: (digest) =>
          sql`SELECT pairing_id, node_id, token_digest FROM node_pairings WHERE token_digest = ${digest} AND status = 'approved'`
      })

      const list = (status?: PairingStatus) =>
        rows(
          status === undefined
            ? sql`SELECT * FROM node_pairings ORDER BY requested_at DESC, pairing_id DESC`
            : sql`SELECT * FROM node_pairings WHERE status = ${status} ORDER BY requested_at DESC, pairing_id DESC`
        )

      // A row that does not decode is corrupt storage, not a client's mistake: a defect.

      return PairingsRepo.of(repositoryEdge("PairingsRepo", {
        get: (pairingId) => one(sql`SELECT * FROM node_pairings WHERE pairing_id = ${pairingId}`),
        findByNode: (nodeId) => one(sql`SELECT * FROM node_pairings WHERE node_id = ${nodeId}`),
        list: (status) => list(status),
        refresh: (seen, approvedPairingId) => refresh(seen, approvedPairingId),
        reopen: (seen) => reopen(seen),
        insertPending: (seen) => insertPending(seen),
        approve: (pairingId, write) => approve(pairingId, write),
        rotateToken: (pairingId, tokenDigest) => rotateToken(pairingId, tokenDigest),
        deny: (pairingId, write) => deny(pairingId, write),
        revoke: (pairingId, write) => revoke(pairingId, write),
        findApprovedByTokenDigest: (digest) =>
          Effect.map(findByDigest(digest), (o) =>
            o._tag === "Some" ? { pairingId: o.value.pairing_id, nodeId: o.value.node_id, tokenDigest: o.value.token_digest } : undefined)
      }))
    })
  )
}
