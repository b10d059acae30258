/**
 * Stand-ins for policy-bundle service tests: an `EventBus` that records
 * what is published (and lets a test wait for the next event without
 * touching the clock), and the wired services on a test database.
 */
import { Context, Effect, Layer, Queue } from "effect"
import { EventBus } from "../../../services/ws-sessions/EventBus.ts"
import { AuditLog } from "../../../services/audit/AuditLog.ts"
import { PolicyBundle } from "../../../services/policy-bundle/PolicyBundle.ts"
import { PolicyOverrideRepo } from "../../../services/policy-bundle/PolicyOverrideRepo.ts"
import { PolicyOverrides } from "../../../services/policy-bundle/PolicyOverrides.ts"
import { PolicySnapshotRepo } from "../../../services/policy-bundle/PolicySnapshotRepo.ts"
import { type PolicySource, PolicySources } from "../../../services/policy-bundle/PolicySources.ts"
import type { TestDatabase } from "../../support/databases.ts"

/** A published event. */
export interface Recorded {
  readonly type: string
  readonly payload: any
}

/** The events published so far, and a queue of them in order. */
export class RecordedEvents extends Context.Service<RecordedEvents, {
  readonly all: Array<Recorded>
  /** The next published event (waits for it). */
  readonly next: Effect.Effect<Recorded>
  /** Waits for the next event of `type` about override `id`, skipping any other. */
  readonly waitFor: (type: string, id: string) => Effect.Effect<Recorded>
}>()("test/policy-bundle/RecordedEvents") {}

/** An `EventBus` that records instead of delivering, with {@link RecordedEvents}. */
export const RecordingEventBus = Layer.effectContext(Effect.gen(function*() {
  const queue = yield* Queue.unbounded<Recorded>()
  const all: Array<Recorded> = []
  const record = (type: string, payload: any) =>
    Effect.map(Queue.offer(queue, { type, payload }), () => {
      all.push({ type, payload })
      return { envelope: { event_id: "test", type, occurred_at: "", payload }, delivered: 0 }
    })
  const bus = EventBus.of({
    publish: (event, payload) => record(event.type, payload),
    sendTo: (_connections, event, payload) => record(event.type, payload)
  })
  const waitFor = (type: string, id: string): Effect.Effect<Recorded> =>
    Effect.flatMap(Queue.take(queue), (event) =>
      event.type === type && event.payload?.override?.policy_override_id === id ? Effect.succeed(event) : waitFor(type, id))
  return Context.make(EventBus, bus).pipe(Context.add(RecordedEvents, RecordedEvents.of({ all, next: Queue.take(queue), waitFor })))
}))

/** `PolicyOverrides` and `PolicyBundle` on `db` with recorded events and the given sources. */
export const policyLayer = (db: TestDatabase, sources: { readonly deployment?: PolicySource; readonly agent?: PolicySource } = {}) =>
  PolicyBundle.layerNoDeps.pipe(
    Layer.provideMerge(PolicySnapshotRepo.layer),
    Layer.provideMerge(PolicyOverrides.layerNoDeps),
    Layer.provideMerge(PolicyOverrideRepo.layer),
    Layer.provideMerge(AuditLog.layer),
    Layer.provideMerge(RecordingEventBus),
    Layer.provide(PolicySources.make(sources)),
    Layer.provideMerge(db.layer)
  )
