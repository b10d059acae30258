/**
 * AuthService against every test database (SQLite always, PostgreSQL when
 * SVC_TEST_DATABASE_URL is set): admin token, device token issue,
 * authentication, revocation and expiry on the test clock.
 */
import { expect, layer } from "@effect/vitest"
import { Duration, Effect, Layer, Logger, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { AuditLog } from "../../../services/audit/AuditLog.ts"
import { AuthConfig, AuthService } from "../../../services/auth/AuthService.ts"
import { DeviceTokenRepo } from "../../../services/auth/DeviceTokenRepo.ts"
import { RateLimitConfig, RateLimiter } from "../../../services/auth/RateLimiter.ts"
import * as BoundedMemoryStore from "../../../layers/ratelimit/BoundedMemoryStore.ts"
import { tokenDigest } from "../../../services/auth/tokenCrypto.ts"
import { testDatabases } from "../../support/databases.ts"

const ADMIN = "c".repeat(64)

const authLayer = (db: (typeof testDatabases)[number]) =>
  AuthService.layerNoDeps.pipe(
    Layer.provideMerge(DeviceTokenRepo.layer),
    Layer.provideMerge(AuditLog.layer),
    Layer.provideMerge(RateLimiter.layerNoDeps.pipe(
      Layer.provide(Layer.succeed(RateLimitConfig, { max: 2, windowSeconds: 60 })),
      Layer.provide(BoundedMemoryStore.layer())
    )),
    Layer.provide(Layer.succeed(AuthConfig, {
      enabled: true,
      adminToken: Redacted.make(ADMIN),
      adminTokenSource: "environment",
      adminTokenPath: undefined
    })),
    Layer.provideMerge(db.layer)
  )

for (const db of testDatabases) {
  layer(authLayer(db))(`AuthService on ${db.name}`, (it) => {
    it.effect("recognises the admin token and rejects look-alikes", () =>
      Effect.gen(function*() {
        const auth = yield* AuthService
        expect(yield* auth.authenticate(ADMIN)).toEqual({ kind: "admin" })
        expect(auth.isAdminToken(ADMIN)).toBe(true)
        expect(auth.isAdminToken(ADMIN + "x")).toBe(false)
        for (const bad of ["", ADMIN.slice(1), "svc-device.v1.nope"]) {
          const error = yield* Effect.flip(auth.authenticate(bad))
          expect(error._tag).toBe("Unauthorized")
        }
      }))

    it.effect("stores only the digest and authenticates the issued token with its scopes", () =>
      Effect.gen(function*() {
        const auth = yield* AuthService
        const sql = yield* SqlClient.SqlClient
        const issued = yield* auth.issueDeviceToken({ device_id: "dev-a", role: "node", scopes: ["operator.read", "operator.read"] })
        expect(issued.scopes).toEqual(["operator.read"])
        const rows = yield* sql<{ token_digest: string }>`SELECT token_digest FROM device_tokens WHERE token_id = ${issued.token_id}`
        expect(rows[0].token_digest).toBe(tokenDigest(issued.token))
        const all = JSON.stringify(yield* sql`SELECT * FROM device_tokens`)
        expect(all).not.toContain(issued.token)
        const principal = yield* auth.authenticate(issued.token)
        expect(principal.kind).toBe("device")
        if (principal.kind !== "device") return
        expect(principal.deviceId).toBe("dev-a")
        expect(principal.role).toBe("node")
        expect([...principal.scopes]).toEqual(["operator.read"])
      }))

    it.effect("expires tokens after their ttl (test clock)", () =>
      Effect.gen(function*() {
        const auth = yield* AuthService
        const issued = yield* auth.issueDeviceToken({ device_id: "dev-b", role: "client", scopes: [], ttl_seconds: 60 })
        yield* auth.authenticate(issued.token)
        yield* TestClock.adjust(Duration.seconds(59))
        yield* auth.authenticate(issued.token)
        yield* TestClock.adjust(Duration.seconds(1))
        expect((yield* Effect.flip(auth.authenticate(issued.token)))._tag).toBe("Unauthorized")
      }))

    it.effect("persistent tokens never expire; default lifetime is 15 minutes", () =>
      Effect.gen(function*() {
        const auth = yield* AuthService
        const persistent = yield* auth.issueDeviceToken({ device_id: "p", role: "client", scopes: [], persistent: true })
        const regular = yield* auth.issueDeviceToken({ device_id: "r", role: "client", scopes: [] })
        expect(persistent.expires_at).toBeNull()
        yield* TestClock.adjust(Duration.minutes(15))
        expect((yield* Effect.flip(auth.authenticate(regular.token)))._tag).toBe("Unauthorized")
        yield* TestClock.adjust(Duration.days(365))
        expect((yield* auth.authenticate(persistent.token)).kind).toBe("device")
      }))

    it.effect("revokes once; revoked tokens are refused", () =>
      Effect.gen(function*() {
        const auth = yield* AuthService
        const issued = yield* auth.issueDeviceToken({ device_id: "dev-c", role: "client", scopes: ["operator.admin"] })
        expect(yield* auth.revokeDeviceToken(issued.token)).toEqual({ revoked: true, token_id: issued.token_id })
        expect((yield* Effect.flip(auth.revokeDeviceToken(issued.token)))._tag).toBe("NotFound")
        expect((yield* Effect.flip(auth.authenticate(issued.token)))._tag).toBe("Unauthorized")
        expect((yield* Effect.flip(auth.revokeDeviceToken("svc-device.v1.never-issued")))._tag).toBe("NotFound")
      }))

    it.effect("a stored token whose role or scopes the gateway does not know (an old database) is 401 and logged, not a defect", () =>
      Effect.gen(function*() {
        const auth = yield* AuthService
        const sql = yield* SqlClient.SqlClient
        const logs: Array<{ message: unknown; annotations: Record<string, unknown> }> = []
        const cases = [
          { role: "god", scopes: JSON.stringify(["operator.read"]) },
          { role: "client", scopes: JSON.stringify(["*"]) },
          { role: "client", scopes: JSON.stringify(["operator.root"]) },
          { role: "client", scopes: "not json" }
        ]
        for (const stored of cases) {
          const issued = yield* auth.issueDeviceToken({ device_id: "dev-old", role: "client", scopes: ["operator.read"] })
          yield* sql`UPDATE device_tokens SET role = ${stored.role}, scopes = ${stored.scopes} WHERE token_id = ${issued.token_id}`
          const refused = yield* Effect.flip(auth.authenticate(issued.token)).pipe(
            Effect.provide(Logger.layer([Logger.map(Logger.formatStructured, (entry) => void logs.push(entry))]))
          )
          expect(refused._tag).toBe("Unauthorized")
          expect(logs.at(-1)).toMatchObject({ message: "stored device token is unreadable; refused", annotations: { token_id: issued.token_id } })
          expect(JSON.stringify(logs)).not.toContain(issued.token)
        }
      }))

    it.effect("audits issue and revoke, and refused credentials up to the rate limit, never the token", () =>
      Effect.gen(function*() {
        const auth = yield* AuthService
        const audit = yield* AuditLog
        const issued = yield* auth.issueDeviceToken({ device_id: "dev-audit", role: "client", scopes: ["operator.read"] })
        yield* auth.revokeDeviceToken(issued.token)
        const tokens = yield* audit.events("gateway.device_tokens")
        expect(tokens.slice(-2).map((e) => e.action)).toEqual([
          { type: "device_token.issued", token_id: issued.token_id, device_id: "dev-audit", role: "client", scopes: ["operator.read"], expires_at: issued.expires_at },
          { type: "device_token.revoked", token_id: issued.token_id }
        ])
        const before = (yield* audit.events("gateway.auth")).length
        for (let i = 0; i < 4; i++) yield* Effect.flip(auth.authenticateAttempt(issued.token, "203.0.113.9"))
        const failures = (yield* audit.events("gateway.auth")).slice(before)
        // The limit is 2: the third and fourth attempts are refused with 429 and not written.
        expect(failures.map((e) => e.action)).toEqual([
          { type: "auth.failed", reason: "invalid_token", client_address: "203.0.113.9" },
          { type: "auth.failed", reason: "invalid_token", client_address: "203.0.113.9" }
        ])
        expect(JSON.stringify([...tokens, ...failures])).not.toContain(issued.token)
        expect(audit.verify(yield* audit.events("gateway.auth")).valid).toBe(true)
      }))
  })
}
