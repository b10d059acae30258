/**
 * Presence (gateway-api.md "Presence response"; reference §5.2–5.3, §7.8):
 * the gateway's own entry plus one entry per device that connected or sent
 * `presence.beacon`, kept for a TTL after it was last seen (60 s default, at
 * most 500 entries). Changes are broadcast as `presence.upserted {entry}` and
 * `presence.pruned {instance_id}` to operator clients holding operator.read.
 */
import { Clock, Context, Duration, Effect, Layer, Schedule } from "effect"
import { GATEWAY_VERSION } from "../../layers/config.ts"
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
}>()("svc-gateway/ws-sessions/PresenceConfig") {
  /**
   * The gateway's settings: a fresh instance id (`gw-<uuid>`), the gateway
   * version, entries kept 60 s after last seen (pruned every 5 s), at most 500.
   */
  static readonly layer = Layer.sync(PresenceConfig, () => ({
    instanceId: `gw-${crypto.randomUUID()}`,
    version: GATEWAY_VERSION,
    ttl: Duration.seconds(60),
    pruneInterval: Duration.seconds(5),
    maxEntries: 500
  }))
}

/** The presence entries at one instant: the gateway's own entry first, then every live peer entry. */
export interface PresenceSnapshot {
  readonly generatedAt: string
  readonly entries: ReadonlyArray<PresenceEntry>
}

/** The presence service. */
export class Presence extends Context.Service<Presence, {
  /** Records that `deviceId` is present (connect or beacon) and broadcasts `presence.upserted`. */
  readonly upsert: (input: {
    readonly deviceId: string
    readonly role: WsPeerRole
    readonly reason: "connect" | "periodic"
    readonly beacon?: WsPresenceBeaconRequest | undefined
    readonly connectedAt?: string | undefined
  }) => Effect.Effect<PresenceEntry>
  /** Drops expired entries now, broadcasting `presence.pruned` for each. */
  readonly prune: Effect.Effect<ReadonlyArray<string>>
  readonly snapshot: Effect.Effect<PresenceSnapshot>
}>()("svc-gateway/ws-sessions/Presence") {
  /** In-memory presence with a background pruner; needs {@link PresenceConfig} and {@link EventBus}. */
  static readonly layerNoDeps = Layer.effect(
    Presence,
    Effect.gen(function*() {
      const config = yield* PresenceConfig
      const events = yield* EventBus
      const entries = new Map<string, PresenceEntry & { readonly expiresAtMs: number }>()
      const ttlMs = Duration.toMillis(config.ttl)

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
          reason: input.reason
        }
        entries.delete(input.deviceId)
        entries.set(input.deviceId, { ...entry, expiresAtMs: now + ttlMs })
        while (entries.size > config.maxEntries) entries.delete(entries.keys().next().value as string)
        yield* events.publish(PresenceUpserted, { entry })
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
        for (const id of pruned) {
          yield* events.publish(PresencePruned, { instance_id: id })
        }
        return pruned
      })

      const snapshot = Effect.map(Clock.currentTimeMillis, (now): PresenceSnapshot => {
        const generatedAt = new Date(now).toISOString()
        const self: PresenceEntry = {
          instance_id: config.instanceId,
          role: "gateway",
          version: config.version,
          mode: "backend",
          last_seen_at: generatedAt,
          reason: "self"
        }
        const peers: Array<PresenceEntry> = []
        for (const { expiresAtMs, ...entry } of entries.values()) {
          if (expiresAtMs > now) peers.push(entry)
        }
        return { generatedAt, entries: [self, ...peers] }
      })

      yield* prune.pipe(Effect.repeat(Schedule.spaced(config.pruneInterval)), Effect.forkScoped)
      return Presence.of({ upsert, prune, snapshot })
    })
  )

  /** Wired: {@link PresenceConfig.layer}, events on {@link EventBus.layer}. */
  static readonly layer = Presence.layerNoDeps.pipe(Layer.provide(PresenceConfig.layer), Layer.provide(EventBus.layer))
}
