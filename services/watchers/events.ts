/**
 * Events of watchers (docs/watchers.md "Events"), published after the firing
 * is stored, to operator clients holding `operator.read`, with envelope
 * scope `{kind: "watcher", watcher_id}`:
 *
 * | Type | Payload | When |
 * |---|---|---|
 * | `watcher.fired` | `WatcherFiring` | a watcher fired (its run started, or it was only recorded, or starting the run failed) |
 *
 * @module
 */
import { make, OPERATORS_READ } from "../ws-sessions/GatewayEvent.ts"
import { WatcherFiring } from "./schema.ts"

/** A watcher fired; the payload is the firing in its final state (`enqueued`, `recorded` or `failed`). */
export const WatcherFired = make("watcher.fired", { payload: WatcherFiring, audience: OPERATORS_READ })

/** Every event type of this subsystem. */
export const WatcherEvents = [WatcherFired] as const
