/**
 * Authentication and device-token lifecycle (gateway-api.md "Authentication",
 * "Device tokens"; reference §2.1–2.3).
 *
 * - The admin token is break-glass: compared in constant time, bypasses scopes.
 * - Device tokens are random 256-bit secrets (`svc-device.v1.<base64url>`);
 *   only their SHA-256 digest is stored. Revoked or expired tokens are refused.
 * - Audit (docs/audit.md): issue and revoke publish the decisions
 *   `device_token.issued` / `device_token.revoked` (`gateway.device_tokens`
 *   chain) in the same transaction; a refused credential that counts against
 *   the rate limit publishes `auth.failed` (`gateway.auth`). Never the token.
 */
import { transactionAtEdge } from "../../layers/storage/repositoryEdge.ts"
import { NodeServices } from "@effect/platform-node"
import { Clock, Context, Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import {
  DEFAULT_DEVICE_TOKEN_TTL_SECONDS,
  type DeviceTokenIssueRequest,
  type DeviceTokenIssueResponse,
  type DeviceTokenRevokeResponse,
  type Scope
} from "./schema.ts"
import { NotFound, type TooManyRequests, Unauthorized } from "../shared/errors.ts"
import { GatewayConfig } from "../../layers/config.ts"
import { AuditChains, Decision } from "../domain-events/decisions.ts"
import { DomainEvents } from "../domain-events/DomainEvents.ts"
import { resolveAdminToken } from "./adminToken.ts"
import { DeviceTokenRepo } from "./DeviceTokenRepo.ts"
import { RateLimiter } from "./RateLimiter.ts"
import { adminPrincipal, type Principal } from "./principal.ts"
import { DEVICE_TOKEN_PREFIX, generateDeviceToken, makeSecretMatcher, secretEquals, tokenDigest } from "./tokenCrypto.ts"

/** Static auth settings resolved at start-up (see `src/config.ts`). */
export class AuthConfig extends Context.Service<AuthConfig, {
  /** False only for `SVC_AUTH=off` on a loopback bind: every route is then public. */
  readonly enabled: boolean
  /** The admin token (env `SVC_ADMIN_TOKEN`, else `$SVC_HOME/admin-token`). Never logged. */
  readonly adminToken: Redacted.Redacted<string>
  /** Where the admin token came from, for the start log: `environment`, `file` or `generated`. */
  readonly adminTokenSource: "environment" | "file" | "generated"
  /** The admin token file, when the token lives in one. */
  readonly adminTokenPath: string | undefined
}>()("svc-gateway/auth/AuthConfig") {
  /** From `GatewayConfig`: the admin token from the settings, else `$SVC_HOME/admin-token` (generated 0600 on first start). */
  static readonly layer = Layer.effect(
    AuthConfig,
    Effect.gen(function*() {
      const settings = yield* GatewayConfig
      const resolved = yield* resolveAdminToken({ configured: Option.fromUndefinedOr(settings.adminToken), home: settings.home })
      return AuthConfig.of({
        enabled: settings.authEnabled,
        adminToken: resolved.token,
        adminTokenSource: resolved.source,
        adminTokenPath: resolved.path
      })
    })
  ).pipe(Layer.provide(NodeServices.layer))
}

const invalidToken = new Unauthorized({
  message: "Provide a valid token via Authorization: Bearer <token> header or the svc_admin_token cookie"
})

/** De-duplicates scopes, keeping first-seen order. */
const normalizeScopes = (scopes: ReadonlyArray<Scope>): Array<Scope> => [...new Set(scopes)]

/** The authentication service used by the HTTP middleware, the WS upgrade and library users. */
export class AuthService extends Context.Service<AuthService, {
  /** Whether gateway auth is enabled (`SVC_AUTH`). */
  readonly enabled: boolean
  /** Constant-time check that `token` is the admin token. */
  readonly isAdminToken: (token: string) => boolean
  /**
   * Resolves a bearer/cookie token to its principal.
   * Fails with `Unauthorized` (401) for unknown, revoked or expired tokens.
   */
  readonly authenticate: (token: string) => Effect.Effect<Principal, Unauthorized>
  /**
   * `authenticate` for a credential presented by a client at `clientAddress`:
   * a failed attempt counts against that address's rate limit (reference
   * §2.6: the limit stops guessing), and once the window is full further
   * failures get `TooManyRequests` (429) instead of `Unauthorized`. A valid
   * credential is never refused and never counted.
   */
  readonly authenticateAttempt: (
    token: string,
    clientAddress: string
  ) => Effect.Effect<Principal, Unauthorized | TooManyRequests>
  /**
   * Counts an `Unauthorized` failure of `attempt` (a credential checked by
   * another authority, e.g. a scoped node token resolved by the pairing
   * service) against `clientAddress`'s failed-authentication limit, exactly
   * like {@link authenticateAttempt}: one limiter for every credential.
   */
  readonly countFailures: <A, E, R>(
    attempt: Effect.Effect<A, E | Unauthorized, R>,
    clientAddress: string
  ) => Effect.Effect<A, E | Unauthorized | TooManyRequests, R>
  /**
   * Issues a device token (201 body). Default lifetime 900 s; `persistent`
   * means no expiry. `issued_at` is the current time and `expires_at` exactly
   * `ttl_seconds` later, both with millisecond precision, so the token is
   * valid for its whole TTL after the response.
   */
  readonly issueDeviceToken: (request: DeviceTokenIssueRequest) => Effect.Effect<DeviceTokenIssueResponse>
  /** Revokes a device token; `NotFound` (404) when unknown or already revoked. */
  readonly revokeDeviceToken: (token: string) => Effect.Effect<DeviceTokenRevokeResponse, NotFound>
}>()("svc-gateway/auth/AuthService") {
  /** Needs {@link AuthConfig}, {@link DeviceTokenRepo}, {@link RateLimiter}, `DomainEvents` and a `SqlClient` (transactions). */
  static readonly layerNoDeps = Layer.effect(
    AuthService,
    Effect.gen(function*() {
      const config = yield* AuthConfig
      const repo = yield* DeviceTokenRepo
      const limiter = yield* RateLimiter
      const events = yield* DomainEvents
      const sql = yield* SqlClient.SqlClient
      const transaction = transactionAtEdge(sql.withTransaction)
      const isAdminToken = makeSecretMatcher(Redacted.value(config.adminToken))

      const authenticateDevice = Effect.fnUntraced(function*(token: string) {
        const digest = tokenDigest(token)
        const lookup = yield* repo.findByDigest(digest)
        if (lookup !== undefined && "unreadable" in lookup) {
          // A row this version cannot read (a role or scope it does not know): refuse the credential, not the request.
          yield* Effect.logWarning("stored device token is unreadable; refused").pipe(
            Effect.annotateLogs({ token_id: lookup.unreadable.token_id, problem: lookup.unreadable.problem })
          )
          return yield* invalidToken
        }
        const record = lookup?.found
        if (record === undefined || !secretEquals(record.token_digest, digest) || record.revoked_at !== null) {
          return yield* invalidToken
        }
        if (record.expires_at !== null && Date.parse(record.expires_at) <= (yield* Clock.currentTimeMillis)) {
          return yield* invalidToken
        }
        return {
          kind: "device",
          tokenId: record.token_id,
          deviceId: record.device_id,
          role: record.role,
          scopes: new Set(record.scopes),
          expiresAt: record.expires_at
        } satisfies Principal as Principal
      })

      const authenticate = /* hot path (every request or message): no span, docs/performance.md "Spans on the hot path" */ ((token: string): Effect.Effect<Principal, Unauthorized> => {
        if (token.length === 0) return invalidToken
        if (isAdminToken(token)) return Effect.succeed(adminPrincipal)
        if (!token.startsWith(DEVICE_TOKEN_PREFIX)) return invalidToken
        return authenticateDevice(token)
      })

      const countFailures = /* hot path (every request or message): no span, docs/performance.md "Spans on the hot path" */ (<A, E, R>(
        attempt: Effect.Effect<A, E | Unauthorized, R>,
        clientAddress: string
      ) =>
        Effect.catchIf(
          attempt,
          (error): error is Unauthorized => error instanceof Unauthorized,
          // Audited once counted: past the limit (429) nothing more is written, so a flood cannot fill the chain.
          (error) =>
            limiter.hit(clientAddress).pipe(
              Effect.andThen(events.publishOrLog(Decision, {
                chain: AuditChains.auth,
                action: { type: "auth.failed", reason: "invalid_token", client_address: clientAddress }
              })),
              Effect.andThen(Effect.fail(error))
            )
        ) as Effect.Effect<A, E | Unauthorized | TooManyRequests, R>
      )

      const authenticateAttempt = /* hot path (every request or message): no span, docs/performance.md "Spans on the hot path" */ ((token: string, clientAddress: string) =>
        countFailures(authenticate(token), clientAddress)
      )

      const issueDeviceToken = Effect.fn("AuthService.issueDeviceToken")(function*(request: DeviceTokenIssueRequest) {
        const now = yield* Clock.currentTimeMillis
        const token = generateDeviceToken()
        const ttl = request.persistent === true ? undefined : request.ttl_seconds ?? DEFAULT_DEVICE_TOKEN_TTL_SECONDS
        // Millisecond precision: a token is valid for its whole TTL after the response,
        // and expires_at = issued_at + ttl exactly as shown.
        const issuedAt = new Date(now).toISOString()
        const expiresAt = ttl === undefined ? null : new Date(now + ttl * 1000).toISOString()
        const scopes = normalizeScopes(request.scopes)
        const tokenId = crypto.randomUUID()
        yield* transaction(Effect.gen(function*() {
          yield* repo.insert({
            token_id: tokenId,
            token_digest: tokenDigest(token),
            device_id: request.device_id,
            role: request.role,
            scopes,
            issued_at: issuedAt,
            expires_at: expiresAt,
            revoked_at: null
          })
          yield* events.publish(Decision, {
            chain: AuditChains.deviceTokens,
            action: {
              type: "device_token.issued",
              token_id: tokenId,
              device_id: request.device_id,
              role: request.role,
              scopes,
              expires_at: expiresAt
            }
          })
        }))
        yield* Effect.logInfo("device token issued").pipe(
          Effect.annotateLogs({ token_id: tokenId, device_id: request.device_id, role: request.role })
        )
        return {
          token_kind: "device",
          token,
          token_id: tokenId,
          device_id: request.device_id,
          role: request.role,
          scopes,
          issued_at: issuedAt,
          expires_at: expiresAt
        } satisfies DeviceTokenIssueResponse
      })

      const revokeDeviceToken = Effect.fn("AuthService.revokeDeviceToken")(function*(token: string) {
        const now = yield* Clock.currentTimeMillis
        const tokenId = yield* transaction(Effect.gen(function*() {
          const revoked = yield* repo.revoke(tokenDigest(token), new Date(now).toISOString())
          if (revoked !== undefined) {
            yield* events.publish(Decision, { chain: AuditChains.deviceTokens, action: { type: "device_token.revoked", token_id: revoked } })
          }
          return revoked
        }))
        if (tokenId === undefined) {
          return yield* new NotFound({ message: "token not found or already revoked" })
        }
        yield* Effect.logInfo("device token revoked").pipe(Effect.annotateLogs({ token_id: tokenId }))
        return { revoked: true, token_id: tokenId } satisfies DeviceTokenRevokeResponse
      })

      return AuthService.of({
        enabled: config.enabled,
        isAdminToken, // a plain predicate (no Effect)
        authenticate,
        authenticateAttempt,
        countFailures,
        issueDeviceToken,
        revokeDeviceToken
      })
    })
  )

  /**
   * Wired for production: device tokens in the database (`SqlClient`, its
   * tables migrated), the failed-authentication limiter, and {@link AuthConfig}
   * (also provided, for the start log). Needs `GatewayConfig`, a `SqlClient`
   * and `DomainEvents` (the composition root provides it, with the audit
   * chain subscribed).
   */
  static readonly layer = AuthService.layerNoDeps.pipe(
    Layer.provide(DeviceTokenRepo.layer),
    Layer.provide(RateLimiter.layer),
    Layer.provideMerge(AuthConfig.layer)
  )
}
