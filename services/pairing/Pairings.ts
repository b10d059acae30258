/**
 * Node pairing (gateway-api.md "Pairing (node enrollment)", "States and
 * transitions"; reference §4; docs/pairing.md).
 *
 * A node (a WebSocket peer of role `node`) gets a pairing when it completes
 * `connect.proof` (`nodeConnected`): a new one is `pending`, a pending or
 * approved one is refreshed, a denied or revoked one goes back to `pending`.
 * Operators move it: approve (pending only; generates the scoped node token,
 * stores only its digest), deny (pending only), revoke (any but revoked).
 * Each transition is one conditional write; what it announces runs after the
 * commit (`SqlClient.afterCommit`): `pairing.requested` / `pairing.resolved`
 * to operators holding operator.pairing, `pairing.approved {pairing,
 * scoped_token}` written only to the node's own live connections, and on
 * deny/revoke every live connection of the node closed (4001).
 *
 * Every transition (and every reissued token) publishes its `pairing.*`
 * decision (`gateway.pairing` audit chain) in the transaction of its write
 * (docs/audit.md); never the token.
 *
 * @module
 */
import { transactionAtEdge } from "../../layers/storage/repositoryEdge.ts"
import { Clock, Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { AuditChains, Decision } from "../domain-events/decisions.ts"
import { DomainEvents } from "../domain-events/DomainEvents.ts"
import type { NodePrincipal } from "../auth/principal.ts"
import { secretEquals, tokenDigest } from "../auth/tokenCrypto.ts"
import { NotFound, Unauthorized } from "../shared/errors.ts"
import { Backplane } from "../backplane/Backplane.ts"
import type { ConnectionEntry } from "../backplane/schema.ts"
import { EventBus } from "../ws-sessions/EventBus.ts"
import { type CapabilityDescriptor, WsCloseCode } from "../ws-sessions/schema.ts"
import { PairingApproved, PairingRequested, PairingResolved } from "./events.ts"
import { type NodeSeen, PairingsRepo } from "./PairingsRepo.ts"
import type { Pairing, PairingResolvedBy, PairingStatus, TrustLevel } from "./schema.ts"
import { generateNodeToken, isNodeToken } from "./token.ts"
import { isoTime as iso } from "../shared/time.ts"

/** What the WebSocket transport reports when a peer of role `node` completed `connect.proof`. */
export interface NodeConnectedInput {
  /** The proven device id. */
  readonly node_id: string
  readonly label?: string | undefined
  /** Advertised in `connect.init`. */
  readonly capabilities: ReadonlyArray<CapabilityDescriptor>
  /** Connection details; absent fields are left out. */
  readonly metadata?: {
    readonly platform?: string | undefined
    readonly version?: string | undefined
    readonly mode?: string | undefined
    readonly ip?: string | undefined
  } | undefined
  /**
   * The pairing of the scoped node token the connection authenticated with
   * (its `NodePrincipal.pairingId`), if any: then the pairing is only
   * refreshed, and only while it is still approved under that id.
   */
  readonly scopedPairingId?: number | undefined
}

/** An approval's terms (HTTP body or `pairing.approve` payload). */
export interface PairingApproveInput {
  readonly trust_level: TrustLevel
  readonly capability_allowlist: ReadonlyArray<CapabilityDescriptor>
  readonly reason?: string | undefined
}

/** A denial's or revocation's details. */
export interface PairingDecisionInput {
  readonly reason?: string | undefined
}

/** Close reasons (code 4001) of a node's connections when its pairing is denied or revoked. */
export const PAIRING_CLOSE_REASON = { denied: "pairing denied", revoked: "pairing revoked" } as const


const invalidToken = new Unauthorized({ message: "invalid token" })

/** The audit action of a pairing transition: the record's decision fields, never a token. */
const auditAction = (type: string, pairing: Pairing) => ({
  type,
  pairing_id: pairing.pairing_id,
  node_id: pairing.node.node_id,
  status: pairing.status,
  trust_level: pairing.trust_level,
  capability_allowlist: pairing.capability_allowlist,
  resolution: pairing.resolution
})

/** The envelope scope of a pairing's events. */
const nodeScope = (pairing: Pairing) => ({ kind: "node", node_id: pairing.node.node_id })

/** The pairing service. */
export class Pairings extends Context.Service<Pairings, {
  /** The pairing of `nodeId` (a node's proven device id), or `undefined` when it never connected. */
  readonly findByNode: (nodeId: string) => Effect.Effect<Pairing | undefined>
  /** Pairings, newest first; every status when `status` is absent. */
  readonly list: (filter?: { readonly status?: PairingStatus | undefined }) => Effect.Effect<ReadonlyArray<Pairing>>
  /** The pairing; `NotFound` when unknown. */
  readonly get: (pairingId: number) => Effect.Effect<Pairing, NotFound>
  /**
   * A peer of role `node` completed `connect.proof` (any credential): creates
   * its pending pairing, refreshes it (label, capabilities, metadata,
   * last_seen_at), or moves a denied or revoked one back to pending;
   * `pairing.requested` is announced when it became pending. With
   * `scopedPairingId` (a scoped-token connection) it only refreshes the
   * pairing if it is still approved under that id, and returns `undefined`
   * otherwise: the token is no longer valid and the connection must close.
   * Storage failures are defects.
   */
  readonly nodeConnected: (input: NodeConnectedInput) => Effect.Effect<Pairing | undefined>
  /**
   * pending → approved with the terms, and a new scoped node token (only its
   * digest stored) sent in `pairing.approved` to the node's live connections
   * only; `pairing.resolved` to operators. `NotFound` when unknown or not pending.
   */
  readonly approve: (
    pairingId: number,
    input: PairingApproveInput,
    by: PairingResolvedBy
  ) => Effect.Effect<Pairing, NotFound>
  /** pending → denied; closes the node's live connections (4001 `pairing denied`). `NotFound` when unknown or not pending. */
  readonly deny: (pairingId: number, input: PairingDecisionInput, by: PairingResolvedBy) => Effect.Effect<Pairing, NotFound>
  /**
   * any but revoked → revoked: the token stops working at once and the node's
   * live connections close (4001 `pairing revoked`), whatever credential they
   * used. `NotFound` when unknown or already revoked.
   */
  readonly revoke: (pairingId: number, input: PairingDecisionInput, by: PairingResolvedBy) => Effect.Effect<Pairing, NotFound>
  /**
   * Resolves a scoped node token (`svc-node.v1.…`) to its principal: the
   * token of an approved pairing, compared by digest in constant time.
   * `Unauthorized` otherwise.
   */
  readonly authenticateToken: (token: string) => Effect.Effect<NodePrincipal, Unauthorized>
}>()("svc-gateway/pairing/Pairings") {
  /** Needs {@link PairingsRepo}, `EventBus`, the `Backplane` (a node's connections), `DomainEvents` and a `SqlClient` (transactions, `afterCommit`). */
  static readonly layerNoDeps = Layer.effect(
    Pairings,
    Effect.gen(function*() {
      const repo = yield* PairingsRepo
      const events = yield* EventBus
      const backplane = yield* Backplane
      const sql = yield* SqlClient.SqlClient
      const transaction = transactionAtEdge(sql.withTransaction)
      const domainEvents = yield* DomainEvents

      /** `write`, and when it took effect its decision `type` (audited), in one transaction. */
      const audited = <E>(write: Effect.Effect<Pairing | undefined, E>, type: string) =>
        transaction(Effect.tap(write, (pairing) =>
          pairing === undefined
            ? Effect.void
            : domainEvents.publish(Decision, { chain: AuditChains.pairing, action: auditAction(type, pairing) })))

      const nodeConnections = (nodeId: string): ReadonlyArray<ConnectionEntry> =>
        backplane.connections().filter((c) => c.role === "node" && c.deviceId === nodeId)

      const announceRequested = (pairing: Pairing) =>
        sql.afterCommit(Effect.asVoid(events.publish(PairingRequested, { pairing }, nodeScope(pairing))))

      const get = Effect.fn("Pairings.get")((pairingId: number) =>
        Effect.flatMap(repo.get(pairingId), (pairing) =>
          pairing === undefined ? Effect.fail(new NotFound({ message: `pairing ${pairingId} not found` })) : Effect.succeed(pairing)))

      const nodeConnected = Effect.fn("Pairings.nodeConnected")(function*(input: NodeConnectedInput) {
        const metadata = Object.fromEntries(
          Object.entries(input.metadata ?? {}).filter((entry): entry is [string, string] => entry[1] !== undefined)
        )
        const seen: NodeSeen = {
          nodeId: input.node_id,
          label: input.label,
          capabilities: input.capabilities,
          metadata: Object.keys(metadata).length > 0 ? metadata : undefined,
          at: iso(yield* Clock.currentTimeMillis)
        }
        if (input.scopedPairingId !== undefined) return yield* repo.refresh(seen, input.scopedPairingId)
        // Each step is conditional; a concurrent connection of the same node can only move the row to a state
        // a later step handles (rows are never deleted), so this settles within a few rounds.
        for (let round = 0; round < 8; round++) {
          const refreshed = yield* repo.refresh(seen)
          if (refreshed !== undefined) {
            // An approved node on a bootstrap credential (it was offline when approved, or lost its token): it
            // proved its device key, so it gets a fresh scoped token (the previous one stops working).
            if (refreshed.status === "approved") yield* reissueToken(refreshed)
            return refreshed
          }
          const reopened = yield* audited(repo.reopen(seen), "pairing.requested")
          if (reopened !== undefined) {
            yield* announceRequested(reopened)
            return reopened
          }
          const created = yield* audited(repo.insertPending(seen), "pairing.requested")
          if (created !== undefined) {
            yield* announceRequested(created)
            return created
          }
        }
        return yield* Effect.die(new Error(`pairing of ${input.node_id}: no write settled`))
      }, Effect.orDie)

      const notPending = (pairingId: number) => new NotFound({ message: `pairing ${pairingId} not found or not pending` })

      /** Writes `pairing.approved` to the node's own live connections: never broadcast, never logged. */
      const deliverToken = (pairing: Pairing, token: string) =>
        Effect.map(
          events.sendTo(nodeConnections(pairing.node.node_id), PairingApproved, { pairing, scoped_token: token }, nodeScope(pairing)),
          (published) => published.delivered
        )

      /** A new scoped token for an approved pairing, written to the node's live connections after commit. */
      const reissueToken = (pairing: Pairing) =>
        Effect.gen(function*() {
          const token = generateNodeToken()
          const rotated = yield* audited(repo.rotateToken(pairing.pairing_id, tokenDigest(token)), "pairing.token_reissued")
          if (rotated === undefined) return
          yield* sql.afterCommit(Effect.gen(function*() {
            const delivered = yield* deliverToken(rotated, token)
            yield* Effect.logInfo("scoped node token reissued").pipe(
              Effect.annotateLogs({ pairing_id: rotated.pairing_id, node_id: rotated.node.node_id, token_delivered_to: delivered })
            )
          }))
        })

      const approve = Effect.fn("Pairings.approve")(function*(pairingId: number, input: PairingApproveInput, by: PairingResolvedBy) {
        const token = generateNodeToken()
        const won = yield* audited(
          repo.approve(pairingId, {
            trustLevel: input.trust_level,
            allowlist: input.capability_allowlist,
            tokenDigest: tokenDigest(token),
            at: iso(yield* Clock.currentTimeMillis),
            by,
            reason: input.reason
          }),
          "pairing.approved"
        )
        if (won === undefined) return yield* notPending(pairingId)
        yield* sql.afterCommit(Effect.gen(function*() {
          const delivered = yield* deliverToken(won, token)
          yield* Effect.logInfo("pairing approved").pipe(
            Effect.annotateLogs({ pairing_id: won.pairing_id, node_id: won.node.node_id, token_delivered_to: delivered })
          )
          yield* events.publish(PairingResolved, { pairing: won }, nodeScope(won))
        }))
        return won
      })

      /** Closes every live connection of the node (role node, whatever credential), then announces. */
      const closeAndAnnounce = (pairing: Pairing, reason: string) =>
        sql.afterCommit(Effect.gen(function*() {
          for (const connection of nodeConnections(pairing.node.node_id)) {
            yield* backplane.close(connection.connectionId, WsCloseCode.unauthorized, reason)
          }
          yield* Effect.logInfo(reason).pipe(Effect.annotateLogs({ pairing_id: pairing.pairing_id, node_id: pairing.node.node_id }))
          yield* events.publish(PairingResolved, { pairing }, nodeScope(pairing))
        }))

      const deny = Effect.fn("Pairings.deny")(function*(pairingId: number, input: PairingDecisionInput, by: PairingResolvedBy) {
        const won = yield* audited(repo.deny(pairingId, { at: iso(yield* Clock.currentTimeMillis), by, reason: input.reason }), "pairing.denied")
        if (won === undefined) return yield* notPending(pairingId)
        yield* closeAndAnnounce(won, PAIRING_CLOSE_REASON.denied)
        return won
      })

      const revoke = Effect.fn("Pairings.revoke")(function*(pairingId: number, input: PairingDecisionInput, by: PairingResolvedBy) {
        const won = yield* audited(repo.revoke(pairingId, { at: iso(yield* Clock.currentTimeMillis), by, reason: input.reason }), "pairing.revoked")
        if (won === undefined) return yield* new NotFound({ message: `pairing ${pairingId} not found or already revoked` })
        yield* closeAndAnnounce(won, PAIRING_CLOSE_REASON.revoked)
        return won
      })

      const authenticateToken = Effect.fn("Pairings.authenticateToken")((token: string): Effect.Effect<NodePrincipal, Unauthorized> => {
        if (!isNodeToken(token)) return Effect.fail(invalidToken)
        const digest = tokenDigest(token)
        return Effect.flatMap(repo.findApprovedByTokenDigest(digest), (owner) =>
          owner === undefined || !secretEquals(owner.tokenDigest, digest)
            ? Effect.fail(invalidToken)
            : Effect.succeed<NodePrincipal>({ kind: "node", nodeId: owner.nodeId, pairingId: owner.pairingId }))
      })

      return Pairings.of({
        findByNode: Effect.fn("Pairings.findByNode")((nodeId) => repo.findByNode(nodeId)),
        list: Effect.fn("Pairings.list")((filter) => repo.list(filter?.status)),
        get,
        nodeConnected,
        approve,
        deny,
        revoke,
        authenticateToken
      })
    })
  )

  /**
   * Wired: storage ({@link PairingsRepo}, migrated) and the services it
   * announces and closes connections through (event bus, backplane); shared
   * layers are built once. Needs a `SqlClient` and `DomainEvents` (the
   * composition root provides it, with the audit chain subscribed).
   */
  static readonly layer = Pairings.layerNoDeps.pipe(
    Layer.provide(PairingsRepo.layer),
    Layer.provide(EventBus.layer),
    Layer.provide(Backplane.layer)
  )
}
