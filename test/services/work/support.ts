/**
 * The work board service wired for tests on a test database (built per test,
 * so its signal loop runs on the test's `TestClock`), with the audit chain
 * and the WS sessions services; and a scope to work in.
 */
import { Clock, Layer } from "effect"
import { AuditLog } from "../../../services/audit/AuditLog.ts"
import { Work } from "../../../services/work/Work.ts"
import { WorkRepo } from "../../../services/work/WorkRepo.ts"
import { ConnectionRegistry } from "../../../services/ws-sessions/ConnectionRegistry.ts"
import { EventBus } from "../../../services/ws-sessions/EventBus.ts"
import type { TestDatabase } from "../../support/databases.ts"

/** The work service with its repository, the audit chain and the event bus, on a fresh `db`. */
export const workLayer = (db: TestDatabase) =>
  Work.layerNoDeps.pipe(
    Layer.provideMerge(WorkRepo.layer),
    Layer.provideMerge(AuditLog.layer),
    Layer.provideMerge(EventBus.layerNoDeps),
    Layer.provideMerge(ConnectionRegistry.layer),
    // The database client keeps the live clock: its pool's timers must not wait for the TestClock.
    Layer.provideMerge(db.make().pipe(Layer.provide(Layer.succeed(Clock.Clock, Clock.Clock.defaultValue()))))
  )

/** A WorkScope. */
export const scope = { tenant_id: "t1", agent_id: "agent-1", workspace_id: "ws1" } as const

/** Another WorkScope (same tenant and agent, other workspace). */
export const otherScope = { ...scope, workspace_id: "ws2" } as const
