/**
 * The instances of a cluster as the PostgreSQL backplane knows them
 * (`backplane_instances`): this instance's id and the live instances with
 * their role, version and last heartbeat (issue 27: `/status` `peers`).
 * Provided by `Backplane.layerPostgres`.
 *
 * @module
 */
import { Context, type Effect } from "effect"

/** One live instance (`/status` `peers[]`: snake_case as the spec's JSON). */
export interface Peer {
  readonly instance_id: string
  readonly role: string
  readonly version: string
  readonly started_at: string
  readonly last_heartbeat_at: string
}

/** This instance's id and the live instances of the cluster. */
export class BackplanePeers extends Context.Service<BackplanePeers, {
  /** This process's instance id (`gw-<uuid>` unless given). */
  readonly instanceId: string
  /** Instances whose last heartbeat is within the connection TTL, this one included, oldest start first. */
  readonly peers: Effect.Effect<ReadonlyArray<Peer>>
}>()("svc-gateway/backplane/BackplanePeers") {}
