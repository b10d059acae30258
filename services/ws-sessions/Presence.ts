/**
 * Presence (gateway-api.md "Presence response"; reference §5.2–5.3, §7.8):
 * the gateway's own entry plus one entry per device that connected or sent
 * `presence.beacon`, kept for a TTL after it was last seen (60 s default, at
 * most 500 entries). Changes are broadcast as `presence.upserted {entry}` and
 * `presence.pruned {instance_id}` to operator clients holding operator.read.
 *
 * Announcements are coalesced (docs/websocket.md "Presence and connections"):
 * an upsert when none was announced within the last `announceWindow` is
 * announced at once; the upserts that follow within the window are announced
 * together when it ends, as one `presence.upserted` whose `entry` is the most
 * recent and whose `entries` lists each device once (latest state, in the order
 * they were last seen). The window lasts at least `announceWindow` and at least
 * as long as `announceRate` needs to deliver the last announcement (R
 * recipients → R / announceRate seconds), so presence never sends more than
 * about `announceRate` messages per second in total: a connection storm of N
 * devices costs O(N) messages instead of N²/2. Each prune tick announces its
 * expired entries as one `presence.pruned` (`instance_ids` when several).
 *
 * Several instances (docs/scaling.md "What an operator sees"): the snapshot adds the other live instances and the
 * devices connected to them, read from the backplane's directory (so they last as long as its rows: a dead
 * instance's devices go with its TTL); beacon details (host, ip, metadata) stay on the instance that received them.
 * Announcements stay per instance.
 */
import { Clock, Context, Duration, Effect, Layer, Schedule } from "effect"
import { GATEWAY_VERSION } from "../../layers/config.ts"
import { Backplane } from "../backplane/Backplane.ts"
import { BackplanePeers, type Peer } from "../backplane/peers.ts"
import { EventBus } from "./EventBus.ts"
import { PresencePruned, PresenceUpserted } from "./events.ts"
import type { PresenceEntry, WsPeerRole, WsPresenceBeaconRequest } from "./schema.ts"

/** Presence settings. */
export class PresenceConfig extends Context.Service<PresenceConfig, {
  /** Gateway instance id (the `self` entry). */
  readonly instanceId: string
  readonly version: string
  /** How long an entry lives after it was last seen. */
  readonly ttl: Duration.Duration
  /** How often expired entries are pruned. */
  readonly pruneInterval: Duration.Duration
  /** Most entries kept; the least recently seen are dropped first. */
  readonly maxEntries: number
  /** Upserts within this window of an announced one are announced together at its end (zero: each at once). */
  readonly announceWindow: Duration.Duration
  /** Presence messages per second (all recipients together) the window is lengthened to stay under. */
  readonly announceRate: number
}>()("svc-gateway/ws-sessions/PresenceConfig") {
  /**
   * The gateway's settings: the process's instance id (`BackplanePeers`, made by `Backplane.layer`: the same id as
   * `/status` and the backplane), the gateway version, entries kept 60 s after last seen (pruned every 5 s), at most
   * 500, announcements coalesced over at least 250 ms and at most 1,000 presence messages a second (a window per 1,000
   * recipients of one second).
   */
  static readonly layer = Layer.effect(
    PresenceConfig,
    Effect.map(BackplanePeers, (peers) => ({
      instanceId: peers.instanceId,
      version: GATEWAY_VERSION,
      ttl: Duration.seconds(60),
      pruneInterval: Duration.seconds(5),
      maxEntries: 500,
      announceWindow: Duration.millis(250),
      announceRate: 1000
    }))
  ).pipe(Layer.provide(Backplane.layer))
}

/**
 * The presence entries at one instant: the gateway's own entry first, then the cluster's other live instances
 * (`role: "gateway"`), this instance's live entries, then devices connected to other instances; each entry says in
 * `gateway_instance_id` which instance holds it.
 */
export interface PresenceSnapshot {
  readonly generatedAt: string
  readonly entries: ReadonlyArray<PresenceEntry>
}

/** Another live instance of the cluster as a presence entry (`role: "gateway"`, seen at its last heartbeat). */
const gatewayEntry = (peer: Peer): PresenceEntry => ({
  instance_id: peer.instance_id,
  role: "gateway",
  version: peer.version,
  mode: "backend",
  last_seen_at: peer.last_heartbeat_at,
  reason: "periodic",
  gateway_instance_id: peer.instance_id
})

/**
 * Devices connected to other instances (the backplane's directory) and not in `here`, one entry per device (its
 * first connection), seen at their instance's last heartbeat: their entries go with the directory's rows, so a dead
 * instance's devices leave presence when its rows expire.
 */
const heldElsewhereOf = (
  backplane: Backplane["Service"],
  peers: BackplanePeers["Service"]
) =>
(here: ReadonlyArray<PresenceEntry>, live: ReadonlyArray<Peer>): Array<PresenceEntry> => {
  const known = new Set(here.map((e) => e.instance_id))
  const heartbeat = new Map(live.map((p) => [p.instance_id, p.last_heartbeat_at]))
  const out: Array<PresenceEntry> = []
  for (const connection of backplane.connections()) {
    const holder = peers.holderOf(connection.connectionId)
    if (holder === undefined || holder === peers.instanceId || known.has(connection.deviceId)) continue
    known.add(connection.deviceId)
    out.push({
      instance_id: connection.deviceId,
      role: connection.role,
      ...(connection.device.version !== undefined ? { version: connection.device.version } : {}),
      ...(connection.device.mode !== undefined ? { mode: connection.device.mode } : {}),
      connected_at: connection.connectedAt,
      last_seen_at: heartbeat.get(holder) ?? connection.connectedAt,
      reason: "connect",
      gateway_instance_id: holder
    })
  }
  return out
}

/** The presence service. */
export class Presence extends Context.Service<Presence, {
  /** Records that `deviceId` is present (connect or beacon) and announces it with `presence.upserted` (coalesced). */
  readonly upsert: (input: {
    readonly deviceId: string
    readonly role: WsPeerRole
    readonly reason: "connect" | "periodic"
    readonly beacon?: WsPresenceBeaconRequest | undefined
    readonly connectedAt?: string | undefined
  }) => Effect.Effect<PresenceEntry>
  /** Drops expired entries now, announcing them in one `presence.pruned`. */
  readonly prune: Effect.Effect<ReadonlyArray<string>>
  /** The whole cluster's presence ({@link PresenceSnapshot}); one instance: itself and its devices. */
  readonly snapshot: Effect.Effect<PresenceSnapshot>
}>()("svc-gateway/ws-sessions/Presence") {
  /**
   * In-memory presence with a background pruner; needs {@link PresenceConfig}, {@link EventBus}, the
   * {@link Backplane} (its directory) and {@link BackplanePeers} (the cluster's instances).
   */
  static readonly layerNoDeps = Layer.effect(
    Presence,
    Effect.gen(function*() {
      const config = yield* PresenceConfig
      const events = yield* EventBus
      const backplane = yield* Backplane
      const peers = yield* BackplanePeers
      const heldElsewhere = heldElsewhereOf(backplane, peers)
      const entries = new Map<string, PresenceEntry & { readonly expiresAtMs: number }>()
      const ttlMs = Duration.toMillis(config.ttl)
      const scope = yield* Effect.scope

      // Coalescing: `windowOpen` while an announcement went out less than `announceWindow` ago; upserts meanwhile
      // wait in `pending` (one per device, latest state, in last-seen order) for the window's end.
      const minWindowMs = Duration.toMillis(config.announceWindow)
      const coalesce = minWindowMs > 0
      const pending = new Map<string, PresenceEntry>()
      let windowOpen = false
      const announce = (batch: ReadonlyArray<PresenceEntry>) =>
        events.publish(PresenceUpserted, batch.length === 1 ? { entry: batch[0] } : { entry: batch[batch.length - 1], entries: batch })
      /** The window after an announcement that reached `delivered` connections. */
      const windowAfter = (delivered: number) => Duration.millis(Math.max(minWindowMs, (delivered * 1000) / config.announceRate))
      const closeWindows = (first: Duration.Duration): Effect.Effect<void> =>
        Effect.gen(function*() {
          let window = first
          while (true) {
            yield* Effect.sleep(window)
            if (pending.size === 0) {
              windowOpen = false
              return
            }
            const batch = [...pending.values()]
            pending.clear()
            window = windowAfter((yield* announce(batch)).delivered)
          }
        })

      const upsert = Effect.fn("Presence.upsert")(function*(input: {
        readonly deviceId: string
        readonly role: WsPeerRole
        readonly reason: "connect" | "periodic"
        readonly beacon?: WsPresenceBeaconRequest | undefined
        readonly connectedAt?: string | undefined
      }) {
        const now = yield* Clock.currentTimeMillis
        const previous = entries.get(input.deviceId)
        const beacon = input.beacon ?? {}
        const entry: PresenceEntry = {
          instance_id: input.deviceId,
          role: input.role,
          host: beacon.host ?? previous?.host,
          ip: beacon.ip ?? previous?.ip,
          version: beacon.version ?? previous?.version,
          mode: beacon.mode ?? previous?.mode,
          last_input_seconds: beacon.last_input_seconds ?? previous?.last_input_seconds,
          metadata: beacon.metadata ?? previous?.metadata,
          connected_at: input.connectedAt ?? previous?.connected_at,
          last_seen_at: new Date(now).toISOString(),
          expires_at: new Date(now + ttlMs).toISOString(),
          reason: input.reason,
          gateway_instance_id: config.instanceId
        }
        entries.delete(input.deviceId)
        entries.set(input.deviceId, { ...entry, expiresAtMs: now + ttlMs })
        while (entries.size > config.maxEntries) entries.delete(entries.keys().next().value as string)
        if (!coalesce) {
          yield* announce([entry])
        } else if (windowOpen) {
          pending.delete(input.deviceId)
          pending.set(input.deviceId, entry)
        } else {
          windowOpen = true
          const published = yield* announce([entry])
          yield* Effect.forkIn(closeWindows(windowAfter(published.delivered)), scope)
        }
        return entry
      })

      const prune = Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const pruned: Array<string> = []
        for (const [id, entry] of entries) {
          if (entry.expiresAtMs <= now) {
            entries.delete(id)
            pruned.push(id)
          }
        }
        if (pruned.length > 0) {
          yield* events.publish(
            PresencePruned,
            pruned.length === 1 ? { instance_id: pruned[0] } : { instance_id: pruned[pruned.length - 1], instance_ids: pruned }
          )
        }
        return pruned
      })

      /** This instance's entries: itself, then the devices it saw (connected or beaconed) within the TTL. */
      const localEntries = (now: number, generatedAt: string): Array<PresenceEntry> => {
        const self: PresenceEntry = {
          instance_id: config.instanceId,
          role: "gateway",
          version: config.version,
          mode: "backend",
          last_seen_at: generatedAt,
          reason: "self",
          gateway_instance_id: config.instanceId
        }
        const seen: Array<PresenceEntry> = [self]
        for (const { expiresAtMs, ...entry } of entries.values()) {
          if (expiresAtMs > now) seen.push(entry)
        }
        return seen
      }

      const snapshot = Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const generatedAt = new Date(now).toISOString()
        const here = localEntries(now, generatedAt)
        const live = yield* peers.peers
        const others = live.filter((p) => p.instance_id !== peers.instanceId)
        if (others.length === 0) return { generatedAt, entries: here }
        return { generatedAt, entries: [here[0], ...others.map(gatewayEntry), ...here.slice(1), ...heldElsewhere(here, live)] }
      })
      yield* prune.pipe(Effect.repeat(Schedule.spaced(config.pruneInterval)), Effect.forkScoped)
      return Presence.of({ upsert, prune, snapshot })
    })
  )

  /** Wired: {@link PresenceConfig.layer}, events on {@link EventBus.layer}, the directory of {@link Backplane.layer}. */
  static readonly layer = Presence.layerNoDeps.pipe(
    Layer.provide(PresenceConfig.layer),
    Layer.provide(EventBus.layer),
    Layer.provide(Backplane.layer)
  )
}
