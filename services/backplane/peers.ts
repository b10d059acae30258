/**
 * The instances of this gateway as the backplane knows them (issue 27 §2:
 * `/status` `peers`, and which instance holds each connection in
 * `/connections`, `/presence`, `/nodes`): this process's instance id (the one
 * id of the process: `/status` `instance_id`, the presence `self` entry and the
 * backplane's `backplane_instances` row are the same), the live instances with
 * their role, version and last heartbeat, and the holder of a connection.
 *
 * Provided in every mode by `Backplane.layer`: the PostgreSQL backplane
 * (postgres.ts) lists the instances of `backplane_instances` heartbeating within
 * the connection TTL; the in-process one ({@link makeLocalPeers}) lists only
 * itself.
 *
 * @module
 */
import { Clock, Context, Effect } from "effect"

/** One live instance (`/status` `peers[]`: snake_case as the spec's JSON; times ISO-8601). */
export interface Peer {
  readonly instance_id: string
  /** `SVC_ROLE` of that instance: `all`, `edge` or `worker`. */
  readonly role: string
  readonly version: string
  readonly started_at: string
  readonly last_heartbeat_at: string
}

/** This instance's id, the live instances of the cluster, and which one holds a connection. */
export class BackplanePeers extends Context.Service<BackplanePeers, {
  /** This process's instance id (`gw-<uuid>`, new per process, unless given). */
  readonly instanceId: string
  /** Instances whose last heartbeat is within the connection TTL, this one included, oldest start first. */
  readonly peers: Effect.Effect<ReadonlyArray<Peer>>
  /**
   * The instance id holding a connection of the directory (this instance's id for its own connections);
   * `undefined` when the connection is not (or no longer) in the directory.
   */
  readonly holderOf: (connectionId: string) => string | undefined
}>()("svc-gateway/backplane/BackplanePeers") {}

/** A fresh instance id: `gw-<uuid>`. */
export const newInstanceId = (): string => `gw-${crypto.randomUUID()}`

/**
 * The peers of a gateway that is not clustered: only itself, its heartbeat "now"; `isLocal` tells whether a
 * connection id is one of its (in-process) connections.
 */
export const makeLocalPeers = (options: {
  readonly instanceId: string
  readonly role: string
  readonly version: string
  readonly isLocal: (connectionId: string) => boolean
}): Effect.Effect<BackplanePeers["Service"]> =>
  Effect.map(Clock.currentTimeMillis, (started) => {
    const startedAt = new Date(started).toISOString()
    return {
      instanceId: options.instanceId,
      peers: Effect.map(Clock.currentTimeMillis, (now) => [{
        instance_id: options.instanceId,
        role: options.role,
        version: options.version,
        started_at: startedAt,
        last_heartbeat_at: new Date(now).toISOString()
      }]),
      holderOf: (connectionId) => (options.isLocal(connectionId) ? options.instanceId : undefined)
    }
  })
