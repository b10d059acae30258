/**
 * The secret store (gateway-api.md "Secrets"; reference §7.1).
 *
 * Audit (docs/audit.md): storing, rotating and revoking a handle, and every
 * resolution with its outcome, are decisions published for the
 * `gateway.secrets` chain in the same transaction (handle, purpose,
 * outcome; never a value). Rotation and revocation are also published as
 * the `SecretRotated` / `SecretRevoked` domain events (domainEvents.ts).
 *
 * @module
 */
import { Cause, Clock, Context, Effect, Layer, Option, type Redacted, Result } from "effect"
import { randomBytes } from "node:crypto"
import { SecretProviderFromSettings } from "../../layers/secrets/index.ts"
import { AuditChains, Decision, type DecisionAction } from "../domain-events/decisions.ts"
import { DomainEvents } from "../domain-events/DomainEvents.ts"
import { type SecretRef, SecretProvider, type SecretProviderError } from "../../layers/secrets/SecretProvider.ts"
import { InvalidRequest, NotFound } from "../shared/errors.ts"
import { SecretRevoked, SecretRotated } from "./domainEvents.ts"
import { RotationPropagationFailed } from "./errors.ts"
import { agentIdProblem, DEFAULT_AGENT_ID } from "../shared/agent.ts"
import { type SecretHandle, type SecretRotateResponse } from "./schema.ts"
import { type ResolutionOutcome, type SecretHandleRow, SecretsRepo, toSecretHandle } from "./SecretsRepo.ts"

/** What storing a secret needs (the body of `POST /secrets`). */
export interface SecretStoreInput {
  readonly scope: string
  /** Required by the `db` provider; never logged or returned. */
  readonly value?: Redacted.Redacted<string> | undefined
  /** When given, must name the configured provider. */
  readonly provider?: string | undefined
  /** The agent the secret belongs to (default `default`). */
  readonly agent_id?: string | undefined
}

/**
 * Resolves handles to values, in-process only (webhook signatures, OAuth,
 * agent providers). Every resolution is recorded (handle, purpose, time; never
 * the value).
 */
export class SecretResolver extends Context.Service<SecretResolver, {
  /**
   * The value of an active handle, for `purpose` (e.g. `webhook.signature`,
   * `oauth.refresh`; at most 256 characters are recorded). `NotFound` when
   * the handle is unknown or revoked, belongs to another provider, or the
   * provider has no value (an unset environment variable). A provider
   * failure (e.g. a value that does not decrypt) is a defect. Each call is
   * recorded in `secret_resolutions` with its outcome.
   */
  readonly resolve: (handleId: string, purpose: string) => Effect.Effect<Redacted.Redacted<string>, NotFound>
  /**
   * For a secret that checks a caller before anything else is done (a
   * webhook's HMAC key): resolves the handle and runs `check` on the value.
   * Only when `check` succeeds is the resolution recorded (row and
   * `secret.resolved` event, outcome `resolved`); a failed check, and a
   * handle that cannot be resolved (`NotFound`, as {@link resolve}), record
   * nothing, so forged calls cannot fill `secret_resolutions` or the audit
   * chain. Returns `check`'s result.
   */
  readonly resolveChecked: <A, E>(
    handleId: string,
    purpose: string,
    check: (value: Redacted.Redacted<string>) => Result.Result<A, E>
  ) => Effect.Effect<Result.Result<A, E>, NotFound>
}>()("svc-gateway/secrets/SecretResolver") {
  /** Needs {@link SecretsRepo}, `SecretProvider` and `DomainEvents`. */
  static readonly layerNoDeps: Layer.Layer<SecretResolver, never, SecretsRepo | SecretProvider | DomainEvents> = Layer.effect(
    SecretResolver,
    Effect.gen(function*() {
      const repo = yield* SecretsRepo
      const provider = yield* SecretProvider
      const decided = decide(yield* DomainEvents)
      const record = (handleId: string, purpose: string, outcome: ResolutionOutcome) =>
        Effect.flatMap(Clock.currentTimeMillis, (ms) => {
          const resolution = { handle_id: handleId, purpose: purpose.slice(0, 256), outcome }
          return repo.transaction(Effect.andThen(
            repo.recordResolution({ ...resolution, resolved_at: new Date(ms).toISOString() }),
            decided({ type: "secret.resolved", ...resolution })
          ))
        })
      /** The value of `handleId`, or why not (the outcome to record and the message); a provider failure is a defect. */
      const lookup = Effect.fnUntraced(function*(handleId: string) {
        const missing = (outcome: ResolutionOutcome, message: string) => Result.fail({ outcome, message })
        const row = yield* repo.get(handleId)
        if (row === undefined) return missing("not_found", `secret handle ${handleId} not found`)
        if (row.revoked_at !== null) return missing("revoked", `secret handle ${handleId} is revoked`)
        if (row.provider !== provider.kind) {
          return missing("unavailable", `secret handle ${handleId} belongs to the ${row.provider} secret provider, which is not configured`)
        }
        const value = yield* provider.resolve(refOf(row))
        if (Option.isNone(value)) {
          return missing(
            "unavailable",
            provider.kind === "env" ? `secret handle ${handleId}: environment variable ${row.scope} is not set` : `secret handle ${handleId} has no value`
          )
        }
        return Result.succeed(value.value)
      })
      const resolve = Effect.fn("SecretResolver.resolve")(function*(handleId: string, purpose: string) {
        const found = yield* lookup(handleId).pipe(Effect.tapError(() => Effect.ignore(record(handleId, purpose, "failed"))))
        if (Result.isFailure(found)) {
          yield* record(handleId, purpose, found.failure.outcome)
          return yield* new NotFound({ message: found.failure.message })
        }
        yield* record(handleId, purpose, "resolved")
        return found.success
      }, orDie)
      const resolveChecked = Effect.fn("SecretResolver.resolveChecked")(function*<A, E>(
        handleId: string,
        purpose: string,
        check: (value: Redacted.Redacted<string>) => Result.Result<A, E>
      ) {
        const found = yield* orDie(lookup(handleId))
        if (Result.isFailure(found)) return yield* new NotFound({ message: found.failure.message })
        const checked = check(found.success)
        if (Result.isSuccess(checked)) yield* orDie(record(handleId, purpose, "resolved"))
        return checked
      })
      return SecretResolver.of({ resolve, resolveChecked })
    })
  )
}

/**
 * What references secret handles (auth profiles), told about rotation and
 * revocation inside the secret store's transaction, so a failure rolls both
 * back. Implemented by the auth-profiles subsystem.
 */
export class SecretReferences extends Context.Service<SecretReferences, {
  /** Points every reference to `oldHandleId` at `newHandleId`; returns how many changed. */
  readonly repoint: (oldHandleId: string, newHandleId: string) => Effect.Effect<number>
  /** The handle was revoked: disables whatever references it; returns how many. */
  readonly handleRevoked: (handleId: string) => Effect.Effect<number>
}>()("svc-gateway/secrets/SecretReferences") {}

/**
 * One {@link SecretReferences} over several subsystems' (auth profiles,
 * webhook watchers, …): each is told in turn, inside the same transaction;
 * the counts are summed.
 */
export const allSecretReferences = (
  references: ReadonlyArray<SecretReferences["Service"]>
): SecretReferences["Service"] => {
  const sum = (counts: ReadonlyArray<number>) => counts.reduce((a, b) => a + b, 0)
  return SecretReferences.of({
    repoint: Effect.fn("SecretReferences.repoint")((oldHandleId, newHandleId) =>
      Effect.map(Effect.forEach(references, (r) => r.repoint(oldHandleId, newHandleId)), sum)
    ),
    handleRevoked: Effect.fn("SecretReferences.handleRevoked")((handleId) =>
      Effect.map(Effect.forEach(references, (r) => r.handleRevoked(handleId)), sum)
    )
  })
}

/**
 * The secrets subsystem's full service (the HTTP routes use it): the
 * {@link SecretStore} operations plus listing, revocation and rotation.
 * Storage and provider failures are defects (500 `internal_error`, logged
 * without any value).
 */
export class Secrets extends Context.Service<Secrets, {
  /** The configured provider's kind (`db`, `env`, …). */
  readonly provider: string
  /** Stores a secret and returns its handle (`InvalidRequest` for a bad scope, a missing value or another provider). */
  readonly store: (input: SecretStoreInput) => Effect.Effect<SecretHandle, InvalidRequest>
  /** The active handle, or `NotFound`. */
  readonly get: (handleId: string) => Effect.Effect<SecretHandle, NotFound>
  /** The active handles of an agent (default `default`), by creation time. */
  readonly list: (agentId?: string) => Effect.Effect<ReadonlyArray<SecretHandle>>
  /**
   * Revokes an active handle, erases its value and disables what references
   * it (`SecretReferences.handleRevoked`), in one transaction; `NotFound`
   * when it is unknown or already revoked.
   */
  readonly revoke: (handleId: string) => Effect.Effect<void, NotFound>
  /**
   * Stores `value` as a new handle (same agent, provider and scope, next
   * version), repoints every reference from the old handle to it and revokes
   * the old one, in one transaction. `InvalidRequest` when the provider is
   * not rotatable (env) or is not the handle's; `RotationPropagationFailed`
   * when repointing failed (nothing changed).
   */
  readonly rotate: (
    handleId: string,
    value: Redacted.Redacted<string>
  ) => Effect.Effect<SecretRotateResponse, NotFound | InvalidRequest | RotationPropagationFailed>
}>()("svc-gateway/secrets/Secrets") {
  /** Needs {@link SecretsRepo}, `SecretProvider`, {@link SecretReferences} and `DomainEvents`. */
  static readonly layerNoDeps: Layer.Layer<Secrets, never, SecretsRepo | SecretProvider | SecretReferences | DomainEvents> = Layer.effect(
    Secrets,
    Effect.gen(function*() {
      const repo = yield* SecretsRepo
      const provider = yield* SecretProvider
      const domainEvents = yield* DomainEvents
      const decided = decide(domainEvents)
      const references = yield* SecretReferences
      const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())

      const invalid = (message: string) => Effect.fail(new InvalidRequest({ message }))
      const notFound = (handleId: string) => new NotFound({ message: `secret handle ${handleId} not found` })
      const active = (handleId: string) =>
        Effect.flatMap(repo.get(handleId), (row) =>
          row === undefined || row.revoked_at !== null ? Effect.fail(notFound(handleId)) : Effect.succeed(row))

      /** A new handle for (agent, scope) at the next version, with `value` stored by the provider. */
      const create = (agentId: string, scope: string, value: Redacted.Redacted<string> | undefined) =>
        Effect.gen(function*() {
          const row: SecretHandleRow = {
            handle_id: `sec_${randomBytes(16).toString("hex")}`,
            agent_id: agentId,
            provider: provider.kind,
            scope,
            version: yield* repo.nextVersion(agentId, provider.kind, scope),
            created_at: yield* now,
            revoked_at: null,
            replaced_by: null
          }
          yield* repo.insert(row)
          yield* provider.put(refOf(row), value)
          return row
        })

      const store = Effect.fn("Secrets.store")(function*(input: SecretStoreInput) {
        const agentId = input.agent_id ?? DEFAULT_AGENT_ID
        const agentProblem = checkAgentId(agentId)
        if (agentProblem !== undefined) return yield* invalid(`agent_id: ${agentProblem}`)
        if (input.provider !== undefined && input.provider !== provider.kind) {
          return yield* invalid(`provider: ${JSON.stringify(input.provider.slice(0, 64))} is not the configured secret provider (${provider.kind})`)
        }
        if (input.scope.length === 0 || input.scope.length > 256) return yield* invalid("scope: expected 1 to 256 characters")
        const scopeProblem = provider.checkScope(input.scope)
        if (scopeProblem !== undefined) return yield* invalid(`scope: ${scopeProblem}`)
        if (provider.value === "required" && input.value === undefined) {
          return yield* invalid(`value: required by the ${provider.kind} secret provider`)
        }
        if (provider.value === "forbidden" && input.value !== undefined) {
          return yield* invalid(`value: not accepted by the ${provider.kind} secret provider (it reads the value itself)`)
        }
        const row = yield* repo.transaction(Effect.tap(create(agentId, input.scope, input.value), (row) =>
          decided({
            type: "secret.stored",
            handle_id: row.handle_id,
            agent_id: row.agent_id,
            provider: row.provider,
            scope: row.scope,
            version: row.version
          }))).pipe(orDie)
        yield* Effect.logInfo("secret stored").pipe(annotate(row))
        return toSecretHandle(row)
      })

      const revoke = Effect.fn("Secrets.revoke")(function*(handleId: string) {
        const disabled = yield* repo.transaction(Effect.gen(function*() {
          const row = yield* active(handleId)
          if (!(yield* repo.revoke(handleId, yield* now, null))) return yield* notFound(handleId)
          if (row.provider === provider.kind) yield* provider.remove(refOf(row))
          const disabled = yield* references.handleRevoked(handleId)
          yield* decided({ type: "secret.revoked", handle_id: handleId, references_disabled: disabled })
          yield* domainEvents.publish(SecretRevoked, { handle_id: handleId })
          return disabled
        })).pipe(orDie)
        yield* Effect.logInfo("secret revoked").pipe(Effect.annotateLogs({ handle_id: handleId, references_disabled: disabled }))
      })

      const rotate = Effect.fn("Secrets.rotate")(function*(handleId: string, value: Redacted.Redacted<string>) {
        const result = yield* repo.transaction(Effect.gen(function*() {
          const old = yield* active(handleId)
          if (old.provider !== provider.kind) {
            return yield* invalid(`secret handle ${handleId} belongs to the ${old.provider} secret provider, not the configured one (${provider.kind})`)
          }
          if (!provider.rotatable) {
            return yield* invalid(
              `secrets of the ${provider.kind} provider cannot be rotated: change the environment variable ${old.scope} instead`
            )
          }
          const created = yield* create(old.agent_id, old.scope, value)
          const repointed = yield* references.repoint(handleId, created.handle_id).pipe(
            Effect.catchCause((cause) =>
              Effect.logError("secret rotation propagation failed; rolled back").pipe(
                Effect.annotateLogs({ handle_id: handleId, new_handle_id: created.handle_id, cause: Cause.pretty(cause) }),
                Effect.andThen(Effect.fail(new RotationPropagationFailed({ message: "rotation propagation failed; nothing was changed" })))
              )
            )
          )
          if (!(yield* repo.revoke(handleId, yield* now, created.handle_id))) return yield* notFound(handleId)
          yield* provider.remove(refOf(old))
          yield* decided({
            type: "secret.rotated",
            handle_id: handleId,
            new_handle_id: created.handle_id,
            version: created.version,
            references_repointed: repointed
          })
          yield* domainEvents.publish(SecretRotated, {
            handle_id: handleId,
            new_handle_id: created.handle_id,
            agent_id: created.agent_id,
            scope: created.scope,
            version: created.version
          })
          return { created, repointed }
        })).pipe(orDie)
        yield* Effect.logInfo("secret rotated").pipe(
          annotate(result.created),
          Effect.annotateLogs({ replaced: handleId, references_repointed: result.repointed })
        )
        return { revoked: true, handle: toSecretHandle(result.created) }
      })

      return Secrets.of({
        provider: provider.kind,
        store,
        get: Effect.fn("Secrets.get")((handleId) => Effect.map(orDie(active(handleId)), toSecretHandle)),
        list: Effect.fn("Secrets.list")((agentId) => Effect.map(orDie(repo.listActive(agentId ?? DEFAULT_AGENT_ID)), (rows) => rows.map(toSecretHandle))),
        revoke,
        rotate
      })
    })
  )

}


/** The secret store over the configured provider (what other subsystems use to store secrets). */
export class SecretStore extends Context.Service<SecretStore, {
  /** Stores a secret and returns its handle (`InvalidRequest` for a bad scope, a missing value or another provider). */
  readonly store: (input: SecretStoreInput) => Effect.Effect<SecretHandle, InvalidRequest>
  /** The active handle, or `NotFound`. */
  readonly get: (handleId: string) => Effect.Effect<SecretHandle, NotFound>
}>()("svc-gateway/secrets/SecretStore") {
  /** The store operations of {@link Secrets}. */
  static readonly layerNoDeps = Layer.effect(SecretStore, Effect.map(Secrets, (s) => SecretStore.of({ store: s.store, get: s.get })))

  /**
   * Wired: {@link Secrets}, {@link SecretStore} and {@link SecretResolver} on
   * one {@link SecretsRepo} (migrated) and the provider the settings choose
   * (`SVC_SECRET_PROVIDER`). Needs `GatewayConfig`, a `SqlClient`,
   * `DomainEvents` (the composition root provides it, with the audit chain
   * subscribed) and {@link SecretReferences} (the auth-profiles subsystem). Fails at start
   * with `SecretsKeyMismatch` or `SecretsKeyUnreadable` (the `db` provider's
   * master key).
   */
  static readonly layer = Layer.mergeAll(SecretStore.layerNoDeps, SecretResolver.layerNoDeps).pipe(
    Layer.provideMerge(Secrets.layerNoDeps),
    Layer.provide(SecretsRepo.layer),
    Layer.provide(SecretProviderFromSettings)
  )
}

/**
 * Stand-in {@link SecretReferences} for a gateway without auth profiles:
 * nothing references a handle (repoint and revoke report 0). The
 * composition root replaces it with the auth-profiles implementation.
 */
export const SecretReferencesNone = Layer.succeed(SecretReferences, SecretReferences.of({
  repoint: Effect.fn("SecretReferences.repoint")(() => Effect.succeed(0)),
  handleRevoked: Effect.fn("SecretReferences.handleRevoked")(() => Effect.succeed(0))
}))

/** A decision of the secrets subsystem, for the `gateway.secrets` chain (in the caller's transaction). */
const decide = (events: DomainEvents["Service"]) => (action: DecisionAction) =>
  events.publish(Decision, { chain: AuditChains.secrets, action })

const refOf = (row: SecretHandleRow): SecretRef => ({
  handle_id: row.handle_id,
  agent_id: row.agent_id,
  scope: row.scope,
  version: row.version
})

const annotate = (row: SecretHandleRow) =>
  Effect.annotateLogs({ handle_id: row.handle_id, agent_id: row.agent_id, provider: row.provider, scope: row.scope, version: row.version })

/** Why `agentId` is not an agent id (services/shared/agent.ts), or `undefined`. */
export const checkAgentId = agentIdProblem

/**
 * The agent a request selects: the `agent_id` query, else the
 * `x-svc-agent-id` header, else `default`; both given and different is an
 * error (docs/secrets.md "Agents").
 */
export const selectAgent = (query: string | undefined, header: string | undefined): Result.Result<string, string> => {
  if (header !== undefined) {
    const problem = checkAgentId(header)
    if (problem !== undefined) return Result.fail(`x-svc-agent-id: ${problem}`)
    if (query !== undefined && query !== header) return Result.fail("agent_id: the query and the x-svc-agent-id header select different agents")
  }
  if (query !== undefined) {
    const problem = checkAgentId(query)
    if (problem !== undefined) return Result.fail(`agent_id: ${problem}`)
  }
  return Result.succeed(query ?? header ?? DEFAULT_AGENT_ID)
}

/** Provider failures are defects (500, logged without any value), as storage failures are at the repository edge. */
const orDie = <A, E, R>(effect: Effect.Effect<A, E | SecretProviderError, R>): Effect.Effect<A, Exclude<E, SecretProviderError>, R> =>
  Effect.catchIf(
    effect,
    (e): e is SecretProviderError =>
      typeof e === "object" && e !== null && (e as { _tag?: unknown })._tag === "SecretProviderError",
    Effect.die
  ) as Effect.Effect<A, Exclude<E, SecretProviderError>, R>
