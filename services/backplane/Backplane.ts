/**
 * The backplane (docs/architecture.md "Backplane"): the one service every
 * delivery that crosses a connection boundary goes through. Nothing outside
 * `services/backplane/` holds another connection's socket:
 *
 * - **Directory**: the handshaken connections (`register` / `unregister`,
 *   `connections`, `lookup`, `size`, `setReady`), used by node dispatch,
 *   pairing, approvals' fan-out, `GET /connections` and `GET /nodes`.
 * - **Events**: `publish` to an {@link Audience} (every connection in it) and
 *   `sendTo` exactly some connections (direct messages: a node's scoped
 *   token, an error event to one peer); the envelope is serialized once.
 * - **Requests**: gateway-initiated requests (`approval.request`,
 *   `task.execute`) to one connection, `reply` with the peer's response,
 *   correlated by (connection, `request_id`), with a timeout.
 * - **Close**: `close` one connection (pairing denied or revoked).
 *
 * The facades `EventBus`, `ConnectionRegistry` and `GatewayRequests`
 * (services/ws-sessions/) are thin views over it, so services keep naming
 * them; {@link Backplane.layer} is the one place that picks the
 * implementation.
 *
 * **Layers.** {@link Backplane.layerLocal}: in-process (one gateway
 * instance), today's behaviour exactly. {@link Backplane.layerPostgres}
 * (postgres.ts; docs/scaling.md "Backplane on PostgreSQL"): several
 * instances on one PostgreSQL database; it implements the same interface, so
 * selecting it in place of {@link Backplane.layer} changes no service. What a
 * distributed layer implements (and layerPostgres does, through an outbox
 * table with LISTEN/NOTIFY rather than bare notifications):
 *
 * 1. Directory: `register` writes the entry (plain data, with this instance's
 *    id) to a shared table and announces it; `unregister` deletes it (and a
 *    crashed instance's rows are dropped by a lease/heartbeat, as presence
 *    does). Reads stay synchronous: each instance keeps a replica of the
 *    directory, loaded at start and kept current by notifications
 *    (`LISTEN/NOTIFY`). `setReady` updates the entry the same way.
 * 2. Events: `publish` notifies every instance (payload: envelope text and
 *    audience); each delivers to its own connections in the audience and the
 *    publisher's `delivered` counts its own (or all, if acknowledged).
 *    `sendTo`/`close` route by connection id to the owning instance.
 * 3. Requests: the request is routed to the owning instance, which sends it
 *    and forwards the peer's response back to the requesting instance
 *    (keyed by connection and `request_id`); the requester keeps the
 *    timeout. When the owning instance reports the connection closed, or
 *    its lease lapses, pending requests fail with `PeerDisconnected`.
 * 4. Per-instance state stays local: the socket, the outbound mailbox and
 *    its limits (1013), metrics of messages this instance wrote.
 *
 * @module
 */
import { Context, Effect, Layer } from "effect"
import type { PeerRequestError } from "./errors.ts"
import type { MigrationFailed } from "../../layers/storage/migrations.ts"
import { SqlClient } from "effect/sql"
import { makeLocalBackplane } from "./local.ts"
import { BackplaneMode } from "./mode.ts"
import { BackplanePeers, makeLocalPeers, newInstanceId } from "./peers.ts"
import { GATEWAY_VERSION } from "../../layers/config.ts"
import { makePostgresBackplane, type PostgresBackplaneOptions } from "./postgres.ts"
import type { Audience, ConnectionEntry, ConnectionHandle, PeerResponse, Published, RequestOptions } from "./schema.ts"

/** The delivery fabric between connections (see the module doc for each part's contract). */
export class Backplane extends Context.Service<Backplane, {
  /** Adds a handshaken connection of this instance to the directory. */
  readonly register: (connection: ConnectionHandle) => Effect.Effect<void>
  /** Removes a connection from the directory and fails its pending requests with `PeerDisconnected`. */
  readonly unregister: (connectionId: string) => Effect.Effect<void>
  /** The connection's entry, or `undefined` when it is not (or no longer) connected. */
  readonly lookup: (connectionId: string) => ConnectionEntry | undefined
  /** A snapshot of every connection, in connection order. */
  readonly connections: () => ReadonlyArray<ConnectionEntry>
  /** Number of connections. */
  readonly size: () => number
  /** Replaces the `capability.ready` set of a connection (ids); nothing when it is not connected. */
  readonly setReady: (connectionId: string, ready: Iterable<string>) => Effect.Effect<void>
  /**
   * Delivers one event (`type`, plain JSON `payload`, optional envelope
   * `scope`) to every connection in `audience`.
   */
  readonly publish: (audience: Audience, type: string, payload: unknown, scope?: unknown) => Effect.Effect<Published>
  /** Delivers one event to exactly these connections (by id), whatever their audience. Never broadcast. */
  readonly sendTo: (connectionIds: Iterable<string>, type: string, payload: unknown, scope?: unknown) => Effect.Effect<Published>
  /** Closes a connection with a WebSocket close code and reason; nothing when it is not connected. */
  readonly close: (connectionId: string, code: number, reason: string) => Effect.Effect<void>
  /**
   * Sends `{request_id, type, payload}` to `connectionId` and waits for the
   * peer's response: its `result` on `ok:true`, `PeerRequestFailed` on
   * `ok:false`, `PeerRequestTimeout` after the timeout (default 30 s),
   * `PeerDisconnected` if the connection closes first, `PeerNotConnected`
   * when it is not connected. `requestId` defaults to `<type>-<uuid>`.
   */
  readonly request: (
    connectionId: string,
    type: string,
    payload: unknown,
    options?: RequestOptions
  ) => Effect.Effect<unknown, PeerRequestError>
  /** Routes a peer's response from `connectionId`; false when no request is waiting for it. */
  readonly reply: (connectionId: string, response: PeerResponse) => boolean
  /** Number of requests awaiting an answer. */
  readonly pendingCount: () => number
}>()("svc-gateway/backplane/Backplane") {
  /** In-process delivery: this instance's connections only (one gateway). */
  static readonly layerLocal = Layer.effect(Backplane, makeLocalBackplane)

  /**
   * Several instances on one PostgreSQL database (services/backplane/postgres.ts,
   * docs/scaling.md "Backplane on PostgreSQL"): the directory, events and
   * requests reach every instance's connections; also provides
   * {@link BackplanePeers}. Needs the gateway's PostgreSQL `SqlClient`.
   */
  static readonly layerPostgres = (
    options: PostgresBackplaneOptions = {}
  ): Layer.Layer<Backplane | BackplanePeers, MigrationFailed, SqlClient.SqlClient> =>
    Layer.effectContext(Effect.map(makePostgresBackplane(options), ({ backplane, peers }) =>
      Context.make(Backplane, backplane).pipe(Context.add(BackplanePeers, peers))))

  /**
   * The backplane of this gateway, the one selection point: by {@link BackplaneMode}, the PostgreSQL backplane
   * (postgres.ts, `SVC_CLUSTER=1`, which layers/config.ts allows only on PostgreSQL) over the graph's `SqlClient`, or
   * the in-process one ({@link Backplane.layerLocal}). Also provides {@link BackplanePeers} in both modes, with the
   * process's one instance id (`gw-<uuid>`, made here: the presence `self` entry and `/status` use it); not
   * clustered, the peers are this instance alone.
   */
  static readonly layer = Layer.effectContext(
    Effect.gen(function*() {
      const mode = yield* BackplaneMode
      const instanceId = newInstanceId()
      if (!mode.cluster) {
        const backplane = yield* makeLocalBackplane
        const peers = yield* makeLocalPeers({
          instanceId,
          role: mode.role,
          version: GATEWAY_VERSION,
          isLocal: (connectionId) => backplane.lookup(connectionId) !== undefined
        })
        return Context.make(Backplane, backplane).pipe(Context.add(BackplanePeers, peers))
      }
      const sql = yield* Effect.serviceOption(SqlClient.SqlClient)
      if (sql._tag === "None") return yield* Effect.die(new Error("SVC_CLUSTER=1: the PostgreSQL backplane needs the gateway's SqlClient"))
      const made = yield* Effect.provideService(makePostgresBackplane({ instanceId, role: mode.role }), SqlClient.SqlClient, sql.value)
      return Context.make(Backplane, made.backplane).pipe(Context.add(BackplanePeers, made.peers))
    })
  )
}
