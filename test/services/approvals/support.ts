/**
 * Stand-ins for the approvals service tests: fake WebSocket connections that
 * record what they are sent, an in-memory `PolicyOverrides` (only `create`),
 * and the service wired on a test database (built per test, so its expiry
 * fiber runs on the test's `TestClock`).
 */
import { Clock, Duration, Effect, Layer } from "effect"
import { AuditLog } from "../../../services/audit/AuditLog.ts"
import { Approvals, ApprovalsConfig } from "../../../services/approvals/Approvals.ts"
import { ApprovalsRepo } from "../../../services/approvals/ApprovalsRepo.ts"
import type { Principal } from "../../../services/auth/principal.ts"
import { PolicyOverrides, type PolicyOverrideCreateInput } from "../../../services/policy-bundle/PolicyOverrides.ts"
import type { PolicyOverride } from "../../../services/policy-bundle/schema.ts"
import { InvalidRequest } from "../../../services/shared/errors.ts"
import { ConnectionRegistry } from "../../../services/ws-sessions/ConnectionRegistry.ts"
import { EventBus } from "../../../services/ws-sessions/EventBus.ts"
import { GatewayRequests } from "../../../services/ws-sessions/GatewayRequests.ts"
import { devicePrincipal, fakeConnection as connection } from "../../support/connections.ts"
import type { TestDatabase } from "../../support/databases.ts"

/** A device-token principal with `scopes`. */
export const device = devicePrincipal

/** A live connection (its device is the principal's) that records what it is sent. */
export const fakeConnection = (id: string, principal: Principal, role: "client" | "node" = "client") =>
  connection({ id, principal, role, deviceId: principal.kind === "device" ? principal.deviceId : `dev_${id}` })



/** What the fake `PolicyOverrides` was asked to create. */
export const createdOverrides: Array<PolicyOverrideCreateInput> = []

/**
 * `PolicyOverrides` in memory: `create` records and returns an active
 * override; a pattern starting with `reject` fails with `InvalidRequest`
 * (as the real store does for invalid input). Other methods are not used here.
 */
export const FakePolicyOverrides = Layer.sync(PolicyOverrides, () => {
  createdOverrides.length = 0
  let n = 0
  const create = (input: PolicyOverrideCreateInput) =>
    Effect.gen(function*() {
      if (input.pattern.startsWith("reject")) return yield* new InvalidRequest({ message: "pattern: rejected by the store" })
      createdOverrides.push(input)
      const now = yield* Clock.currentTimeMillis
      return {
        policy_override_id: `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}`,
        status: "active",
        created_at: new Date(now).toISOString(),
        agent_id: input.agent_id,
        tool_id: input.tool_id,
        pattern: input.pattern,
        ...(input.workspace_id !== undefined ? { workspace_id: input.workspace_id } : {}),
        ...(input.created_from_approval_id !== undefined ? { created_from_approval_id: input.created_from_approval_id } : {}),
        created_by: input.created_by
      } satisfies PolicyOverride as PolicyOverride
    })
  return { create } as unknown as PolicyOverrides["Service"]
})

/** The approvals service (TTL 3600 s, grace 30 s) with its repository, the audit chain, the WS sessions services and fake overrides, on `db`. */
export const approvalsLayer = (db: TestDatabase) =>
  Approvals.layerNoDeps.pipe(
    Layer.provideMerge(ApprovalsRepo.layer),
    Layer.provideMerge(AuditLog.layer),
    Layer.provide(Layer.succeed(ApprovalsConfig, { ttlSeconds: 3600, requestGrace: Duration.seconds(30) })),
    Layer.provideMerge(FakePolicyOverrides),
    Layer.provideMerge(GatewayRequests.layerNoDeps),
    Layer.provideMerge(EventBus.layerNoDeps),
    Layer.provideMerge(ConnectionRegistry.layer),
    // The database client keeps the live clock: its pool's timers must not wait for the TestClock.
    Layer.provideMerge(db.make().pipe(Layer.provide(Layer.succeed(Clock.Clock, Clock.Clock.defaultValue()))))
  )

/** A pending approval's creation input for `plan`. */
export const input = (plan: string, overrides: Partial<Parameters<Approvals["Service"]["create"]>[0]> = {}) => ({
  kind: "spend" as const,
  plan_id: plan,
  step_index: 0,
  prompt: `approve ${plan}?`,
  ...overrides
})
