/**
 * The memory service wired on a test database for its tests: its
 * repository and vectors, the embedder (semantic search off unless one is
 * given, e.g. `MemoryEmbedder.builtin()`), the audit chain (which
 * `Decision`s join) and the WS event bus, with a connection registry the
 * tests add fake connections to.
 */
import { Clock, Layer } from "effect"
import { AuditLog } from "../../../services/audit/AuditLog.ts"
import { MemoryEmbedder } from "../../../services/memory/embeddings/MemoryEmbedder.ts"
import { Memory } from "../../../services/memory/Memory.ts"
import { MemoryRepo } from "../../../services/memory/MemoryRepo.ts"
import { MemoryVectorRepo } from "../../../services/memory/MemoryVectorRepo.ts"
import { ConnectionRegistry } from "../../../services/ws-sessions/ConnectionRegistry.ts"
import { EventBus } from "../../../services/ws-sessions/EventBus.ts"
import type { TestDatabase } from "../../support/databases.ts"

/** The memory service, its repository and vectors, the audit log and the registry, on a fresh `db`. */
export const memoryLayer = (db: TestDatabase, embedder: Layer.Layer<MemoryEmbedder> = MemoryEmbedder.off) =>
  Memory.layerNoDeps.pipe(
    Layer.provideMerge(embedder),
    Layer.provideMerge(MemoryRepo.layer),
    Layer.provideMerge(MemoryVectorRepo.layer),
    Layer.provideMerge(AuditLog.layer),
    Layer.provideMerge(EventBus.layerNoDeps),
    Layer.provideMerge(ConnectionRegistry.layer),
    // The database client keeps the live clock: its pool's timers must not wait for the TestClock.
    Layer.provideMerge(db.make().pipe(Layer.provide(Layer.succeed(Clock.Clock, Clock.Clock.defaultValue()))))
  )
