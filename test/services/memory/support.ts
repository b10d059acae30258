/**
 * The memory service wired on a test database for its tests: its
 * repository, the audit chain (which `Decision`s join) and the WS event
 * bus, with a connection registry the tests add fake connections to.
 */
import { Clock, Layer } from "effect"
import { AuditLog } from "../../../services/audit/AuditLog.ts"
import { Memory } from "../../../services/memory/Memory.ts"
import { MemoryRepo } from "../../../services/memory/MemoryRepo.ts"
import { ConnectionRegistry } from "../../../services/ws-sessions/ConnectionRegistry.ts"
import { EventBus } from "../../../services/ws-sessions/EventBus.ts"
import type { TestDatabase } from "../../support/databases.ts"

/** The memory service, its repository, the audit log and the registry, on a fresh `db`. */
export const memoryLayer = (db: TestDatabase) =>
  Memory.layerNoDeps.pipe(
    Layer.provideMerge(MemoryRepo.layer),
    Layer.provideMerge(AuditLog.layer),
    Layer.provideMerge(EventBus.layerNoDeps),
    Layer.provideMerge(ConnectionRegistry.layer),
    // The database client keeps the live clock: its pool's timers must not wait for the TestClock.
    Layer.provideMerge(db.make().pipe(Layer.provide(Layer.succeed(Clock.Clock, Clock.Clock.defaultValue()))))
  )
