/**
 * The routing configuration (gateway-api.md "Routing configuration";
 * reference §7.2; docs/routing.md): which agent answers a messenger thread.
 * Every change appends a revision (`PUT`, or a revert that copies an older
 * one); the highest revision is in force. Each new revision is announced
 * with `routing.config.updated` once committed, and is an audited decision
 * (`gateway.routing`, published in the transaction of the revision).
 *
 * Readers (messenger ingress) ask {@link RoutingConfigService.agentFor}.
 * Storage failures are defects (500 `internal_error`); stored state that
 * does not decode is `CorruptState` (500 `corrupt_state`).
 *
 * @module
 */
import { transactionAtEdge } from "../../layers/storage/repositoryEdge.ts"
import { Clock, Context, Effect, Layer, Result, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { AuditChains, Decision } from "../domain-events/decisions.ts"
import { DomainEvents } from "../domain-events/DomainEvents.ts"
import type { Principal } from "../auth/principal.ts"
import { DEFAULT_AGENT_ID } from "../shared/agent.ts"
import { canonicalJson } from "../shared/canonicalJson.ts"
import { makeDecoder, parseJsonBody } from "../shared/decode.ts"
import { sha256Hex } from "../shared/sha256.ts"
import { isoTime } from "../shared/time.ts"
import { EventBus } from "../ws-sessions/EventBus.ts"
import { CorruptState, InvalidRequest, NotFound } from "./errors.ts"
import { RoutingConfigUpdated } from "./events.ts"
import { type NewRoutingConfigRow, RoutingConfigRepo, type RoutingConfigRow } from "./RoutingConfigRepo.ts"
import {
  EMPTY_ROUTING_CONFIG,
  MAX_REASON_LENGTH,
  RoutingActor,
  RoutingConfig,
  type RoutingConfigRecord
} from "./schema.ts"

/** What `PUT /routing/config` needs, plus who makes the change. */
export interface RoutingConfigUpdateInput {
  /** Checked again here (strictly), whoever the caller. */
  readonly config: unknown
  readonly reason?: string | undefined
  readonly created_by: RoutingActor
}

/** What `POST /routing/config/revert` needs, plus who makes the change. */
export interface RoutingConfigRevertInput {
  /** The revision whose configuration becomes the new revision's. */
  readonly revision: number
  readonly reason?: string | undefined
  readonly created_by: RoutingActor
}

/** The routing configuration service. */
export class RoutingConfigService extends Context.Service<RoutingConfigService, {
  /**
   * The revision in force: the highest one, or `{revision: 0, config: {v:
   * 1}}` when none is stored. `CorruptState` when it does not decode.
   */
  readonly current: Effect.Effect<RoutingConfigRecord, CorruptState>
  /**
   * The agent for messenger thread `threadId` under the revision in force:
   * its `messenger.threads` entry, else `messenger.default_agent_id`, else
   * `default`. Reads the database each time (instances sharing PostgreSQL see
   * each other's changes at once). `CorruptState` as {@link current}.
   */
  readonly agentFor: (threadId: string) => Effect.Effect<string, CorruptState>
  /**
   * Appends a revision holding `config` and returns it. `InvalidRequest`
   * naming the field when `config` is not a `RoutingConfig` (unknown keys
   * included) or `reason` is over 1024 characters.
   */
  readonly update: (input: RoutingConfigUpdateInput) => Effect.Effect<RoutingConfigRecord, InvalidRequest>
  /**
   * Appends a revision holding revision `revision`'s configuration, with
   * `reverted_from_revision`, and returns it. `NotFound` when that revision
   * is not stored, `CorruptState` when it does not decode (nothing is
   * copied), `InvalidRequest` for a `reason` over 1024 characters.
   */
  readonly revert: (input: RoutingConfigRevertInput) => Effect.Effect<RoutingConfigRecord, NotFound | CorruptState | InvalidRequest>
}>()("svc-gateway/routing/RoutingConfigService") {
  /** Needs {@link RoutingConfigRepo}, `EventBus`, `DomainEvents` and the `SqlClient` (transactions, to publish after commit). */
  static readonly layerNoDeps = Layer.effect(
    RoutingConfigService,
    Effect.gen(function*() {
      const repo = yield* RoutingConfigRepo
      const bus = yield* EventBus
      const sql = yield* SqlClient.SqlClient
      const domainEvents = yield* DomainEvents

      const decoded = (row: RoutingConfigRow) => {
        const record = decodeRow(row)
        return Result.isSuccess(record) ? Effect.succeed(record.success) : Effect.fail(new CorruptState({ message: record.failure }))
      }

      const current = Effect.flatMap(repo.latest, (row) =>
        row === undefined ? Effect.succeed({ revision: 0, config: EMPTY_ROUTING_CONFIG }) : decoded(row)).pipe(
          Effect.withSpan("RoutingConfigService.current")
        )

      const agentFor = Effect.fn("RoutingConfigService.agentFor")(function*(threadId: string) {
        const { config } = yield* current
        return agentForThread(config, threadId)
      })

      /** Stores a revision and announces it once committed. */
      const append = Effect.fn("RoutingConfigService.append")(function*(
        config: RoutingConfig,
        fields: { readonly reason?: string | undefined; readonly created_by: RoutingActor; readonly reverted_from_revision?: number }
      ) {
        if (fields.reason !== undefined && fields.reason.length > MAX_REASON_LENGTH) {
          return yield* new InvalidRequest({ message: `reason: expected at most ${MAX_REASON_LENGTH} characters` })
        }
        const configJson = canonicalJson(config)
        const row: NewRoutingConfigRow = {
          config_json: configJson,
          created_at: isoTime(yield* Clock.currentTimeMillis),
          created_by_json: JSON.stringify(fields.created_by),
          reason: fields.reason ?? null,
          reverted_from_revision: fields.reverted_from_revision ?? null
        }
        // The revision and its audit event (`gateway.routing`, docs/audit.md) commit together.
        const stored = yield* transactionAtEdge(sql.withTransaction)(Effect.tap(repo.append(row), (stored) =>
          domainEvents.publish(Decision, {
            chain: AuditChains.routing,
            action: {
              type: "routing.config.updated",
              revision: stored.revision,
              config_sha256: sha256Hex(configJson),
              reason: stored.reason,
              reverted_from_revision: stored.reverted_from_revision,
              created_by: fields.created_by
            }
          })))
        // Answered as stored (canonical key order), so the response and a later GET are the same JSON.
        const record = toRecord(stored, JSON.parse(configJson) as RoutingConfig, fields.created_by)
        const config_sha256 = sha256Hex(configJson)
        yield* Effect.logInfo("routing config updated").pipe(Effect.annotateLogs({
          revision: record.revision,
          config_sha256,
          ...(record.reverted_from_revision !== undefined ? { reverted_from_revision: record.reverted_from_revision } : {})
        }))
        yield* sql.afterCommit(Effect.asVoid(bus.publish(RoutingConfigUpdated, {
          revision: record.revision,
          ...(record.reason !== undefined ? { reason: record.reason } : {}),
          config_sha256,
          ...(record.reverted_from_revision !== undefined ? { reverted_from_revision: record.reverted_from_revision } : {})
        })))
        return record
      })

      const update = Effect.fn("RoutingConfigService.update")(function*(input: RoutingConfigUpdateInput) {
        const config = decodeConfig(input.config)
        if (Result.isFailure(config)) return yield* new InvalidRequest({ message: config.failure })
        return yield* append(config.success, { reason: input.reason, created_by: input.created_by })
      })

      const revert = Effect.fn("RoutingConfigService.revert")(function*(input: RoutingConfigRevertInput) {
        const target = yield* repo.get(input.revision)
        if (target === undefined) return yield* new NotFound({ message: `routing config revision ${input.revision} not found` })
        const { config } = yield* decoded(target)
        return yield* append(config, { reason: input.reason, created_by: input.created_by, reverted_from_revision: target.revision })
      })

      return RoutingConfigService.of({ current, agentFor, update, revert })
    })
  )

  /**
   * Wired: the SQL repository (migrated) and this instance's `EventBus`.
   * Needs a `SqlClient` and `DomainEvents` (the composition root provides
   * it, with the audit chain subscribed).
   */
  static readonly layer = RoutingConfigService.layerNoDeps.pipe(
    Layer.provide(RoutingConfigRepo.layer),
    Layer.provide(EventBus.layer)
  )
}

/**
 * The agent for `threadId` under `config`: its `messenger.threads` entry,
 * else `messenger.default_agent_id`, else `default`.
 */
export const agentForThread = (config: RoutingConfig, threadId: string): string => {
  const threads = config.messenger?.threads
  const mapped = threads !== undefined && Object.hasOwn(threads, threadId) ? threads[threadId] : undefined
  return mapped ?? config.messenger?.default_agent_id ?? DEFAULT_AGENT_ID
}

/**
 * `created_by` of a change made by `principal` (never a token):
 * `{kind: "admin"}`, `{kind: "device", token_id, device_id}`,
 * `{kind: "node", node_id}`, or `{kind: "anonymous"}` without a principal.
 */
export const actorOf = (principal: Principal | undefined): RoutingActor => {
  if (principal === undefined) return { kind: "anonymous" }
  switch (principal.kind) {
    case "admin":
      return { kind: "admin" }
    case "device":
      return { kind: "device", token_id: principal.tokenId, device_id: principal.deviceId }
    case "node":
      return { kind: "node", node_id: principal.nodeId }
  }
}

const decodeBody = makeDecoder(Schema.Struct({ config: RoutingConfig }))

/**
 * Decodes a configuration strictly; a failure names the field under `config`
 * (`config.messenger.bogus: unexpected field`, `config.v: expected 1, got 2`).
 */
export const decodeConfig = (input: unknown): Result.Result<RoutingConfig, string> =>
  Result.map(decodeBody({ config: input }), (body) => body.config)

const decodeStored = makeDecoder(Schema.Struct({ config_json: RoutingConfig, created_by_json: RoutingActor }), { label: "row" })

/** A JSON column's value, or why it is not JSON (without quoting it). */
const parseColumn = (column: string, text: string): Result.Result<unknown, string> =>
  Result.mapError(parseJsonBody(text), (problem) => `${column}: ${problem}`)

/** The wire record of a stored row whose content is already decoded. */
const toRecord = (row: RoutingConfigRow, config: RoutingConfig, createdBy: RoutingActor): RoutingConfigRecord => ({
  revision: row.revision,
  config,
  created_at: row.created_at,
  created_by: createdBy,
  ...(row.reason !== null ? { reason: row.reason } : {}),
  ...(row.reverted_from_revision !== null ? { reverted_from_revision: row.reverted_from_revision } : {})
})

/**
 * The wire record of a stored row, or why its content does not decode: the
 * revision, the column and the field (a bad value is quoted up to 40
 * characters; text that is not JSON is not quoted).
 */
export const decodeRow = (row: RoutingConfigRow): Result.Result<RoutingConfigRecord, string> =>
  Result.gen(function*() {
    const config_json = yield* parseColumn("config_json", row.config_json)
    const created_by_json = yield* parseColumn("created_by_json", row.created_by_json)
    const content = yield* decodeStored({ config_json, created_by_json })
    return toRecord(row, content.config_json, content.created_by_json)
  }).pipe(Result.mapError((problem) => `stored routing config revision ${row.revision} does not decode: ${problem}`))
