/**
 * The backplane over PostgreSQL (`Backplane.layerPostgres`; docs/scaling.md
 * "Backplane on PostgreSQL"): several gateway instances on one database
 * deliver to each other's connections. Built over the in-process backplane
 * (local.ts), which keeps this instance's sockets, mailboxes and pending
 * requests.
 *
 * - **Instance**: an id per process (`gw-<uuid>`), a row in
 *   `backplane_instances` refreshed by a heartbeat fiber; `BackplanePeers`
 *   lists the live ones.
 * - **Directory**: `register`/`unregister`/`setReady` write
 *   `backplane_connections` (expiry moved by the heartbeat) and notify;
 *   `lookup`/`connections`/`size` stay synchronous over this instance's
 *   connections plus a mirror of the others', reloaded on notification and
 *   at each poll. A dead instance's rows expire and are swept.
 * - **Events**: `publish` writes one outbox row (to every instance) on the
 *   caller's connection, so inside a transaction it commits or rolls back
 *   with it; `sendTo` and `close` write rows targeted at the owning
 *   instance. This instance's own connections get the event once the row
 *   commits (`SqlClient.afterCommit`); the others' get it when their worker
 *   reads the row (woken by `LISTEN`, else by polling), in id order, from
 *   their cursor: at-least-once. Rows older than the retention are deleted.
 * - **Requests**: to a connection of another instance, a `request` row to its
 *   owner, which asks the peer (as local) and writes the outcome back as a
 *   `reply` row to the asking instance; the asker keeps the timeout.
 *
 * @module
 */
import type * as PgClient from "@effect/sql-pg/PgClient"
import { Cause, Clock, Context, Deferred, Duration, Effect, Exit, Predicate, Queue, Schedule, type Scope } from "effect"
import { SqlClient } from "effect/sql"
import { GATEWAY_VERSION } from "../../layers/config.ts"
import { migrate, type MigrationFailed } from "../../layers/storage/migrations.ts"
import { BackgroundJobs, repeatEvery } from "./BackgroundJobs.ts"
import type { Backplane } from "./Backplane.ts"
import { type ConnectionRow, makeDirectoryRepo } from "./DirectoryRepo.ts"
import { eventEnvelope, inAudience } from "./envelope.ts"
import { PeerDisconnected, PeerNotConnected, PeerRequestFailed, type PeerRequestError, PeerRequestTimeout } from "./errors.ts"
import { DEFAULT_PEER_REQUEST_TIMEOUT, makeLocalDelivery } from "./local.ts"
import { backplaneMigrations } from "./migrations/index.ts"
import { BACKPLANE_CHANNEL, makeOutboxRepo, type OutboxRow } from "./OutboxRepo.ts"
import type { BackplanePeers } from "./peers.ts"
import type { ConnectionEntry, ConnectionHandle, Published } from "./schema.ts"
import { decodeEntry, encodeEntry, type OutboxMessage, type RequestOutcome } from "./wire.ts"

/** Settings of {@link makePostgresBackplane}; every one has a default. */
export interface PostgresBackplaneOptions {
  /** This instance's id (default `gw-<uuid>`, new per process; `Backplane.layer` gives the process's one id). */
  readonly instanceId?: string | undefined
  /** Its role as `/status` shows it (default `all`). */
  readonly role?: string | undefined
  /** Its version (default the gateway's). */
  readonly version?: string | undefined
  /** How often the heartbeat refreshes the instance and its connections (default 5 s). */
  readonly heartbeatInterval?: Duration.Input | undefined
  /** How long a connection row lives without a heartbeat (default 30 s); also the liveness window of `peers`. */
  readonly connectionTtl?: Duration.Input | undefined
  /** The polling fallback when no notification comes (default 1 s). */
  readonly pollInterval?: Duration.Input | undefined
  /** How long outbox rows are kept (default 60 min). */
  readonly retention?: Duration.Input | undefined
  /** Rows read per query (default 200). */
  readonly batchSize?: number | undefined
  /**
   * Whether to `LISTEN` for notifications (default true). Off: polling only, for connection poolers that do not
   * carry `LISTEN` (PgBouncer in transaction mode); events then arrive within `pollInterval`.
   */
  readonly listen?: boolean | undefined
}

interface RemotePending {
  readonly connectionId: string
  readonly requestId: string
  readonly deferred: Deferred.Deferred<unknown, PeerRequestError>
}

const pendingKey = (connectionId: string, requestId: string): string => `${connectionId}\u0000${requestId}`
const iso = (ms: number): string => new Date(ms).toISOString()
/** How often at most an instance saves its outbox cursor. */
const CURSOR_SAVE_INTERVAL_MS = 1_000
/** How long the id of an event published here is remembered when its row never shows (its transaction rolled back). */
const PUBLISHED_MEMORY_MS = 10 * 60_000

/** The failure a forwarded request's outcome stands for. */
const outcomeError = (connectionId: string, requestId: string, outcome: Exclude<RequestOutcome, { ok: true }>): PeerRequestError => {
  switch (outcome.tag) {
    case "PeerNotConnected":
      return new PeerNotConnected({ connectionId, message: outcome.message })
    case "PeerRequestTimeout":
      return new PeerRequestTimeout({ connectionId, requestId, message: outcome.message })
    case "PeerDisconnected":
      return new PeerDisconnected({ connectionId, requestId, message: outcome.message })
    case "PeerRequestFailed":
      return new PeerRequestFailed({
        connectionId,
        requestId,
        code: outcome.error?.code ?? "unknown_error",
        message: outcome.error?.message ?? outcome.message,
        details: outcome.error?.details
      })
  }
}

/** The outcome of a request asked here for another instance. */
const outcomeOf = (exit: Exit.Exit<unknown, PeerRequestError>): RequestOutcome => {
  if (Exit.isSuccess(exit)) return { ok: true, result: exit.value }
  const error = exit.cause.reasons.find((r) => r._tag === "Fail")?.error as PeerRequestError | undefined
  if (error === undefined) return { ok: false, tag: "PeerDisconnected", message: "the request ended on the instance holding the connection" }
  return error._tag === "PeerRequestFailed"
    ? { ok: false, tag: error._tag, message: error.message, error: { code: error.code, message: error.message, details: error.details } }
    : { ok: false, tag: error._tag, message: error.message }
}

/**
 * Builds the PostgreSQL backplane in the current scope (its fibers stop and
 * its instance row is removed when the scope closes). Needs a PostgreSQL
 * `SqlClient` (LISTEN when it is `@effect/sql-pg`'s client, else polling
 * only); applies the backplane migrations.
 */
export const makePostgresBackplane = (options: PostgresBackplaneOptions = {}): Effect.Effect<
  { readonly backplane: Backplane["Service"]; readonly peers: BackplanePeers["Service"] },
  MigrationFailed,
  SqlClient.SqlClient | Scope.Scope
> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* migrate("backplane", backplaneMigrations)
    const local = yield* makeLocalDelivery
    const instanceId = options.instanceId ?? `gw-${crypto.randomUUID()}`
    const directory = makeDirectoryRepo(sql)
    const outbox = makeOutboxRepo(sql, instanceId)
    const jobs = yield* BackgroundJobs
    const scope = yield* Effect.scope

    const heartbeatMs = Duration.toMillis(options.heartbeatInterval ?? Duration.seconds(5))
    const ttlMs = Duration.toMillis(options.connectionTtl ?? Duration.seconds(30))
    const pollInterval = options.pollInterval ?? Duration.seconds(1)
    const retentionMs = Duration.toMillis(options.retention ?? Duration.minutes(60))
    const batchSize = options.batchSize ?? 200
    // NOTIFY reaches every schema of the database: payloads name the schema, so deployments in other schemas are ignored.
    const schema = yield* outbox.currentSchema

    /** Runs `effect` on its own connection, outside any transaction of the caller (requests, directory writes). */
    const outsideTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.updateContext(effect, (context: Context.Context<R>) => Context.omit(sql.transactionService)(context) as Context.Context<R>)
    /** A directory write that may fail: logged, the local side already done (the heartbeat or a reconnect repairs it). */
    const bestEffort = (what: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      outsideTransaction(effect).pipe(
        Effect.catchCause((cause) => Effect.logWarning(`backplane: ${what} failed`).pipe(Effect.annotateLogs({ cause: Cause.pretty(cause) }))),
        Effect.asVoid
      )

    // ---- directory mirror: other instances' connections ----
    let remote = new Map<string, { readonly entry: ConnectionEntry; readonly instanceId: string }>()
    const remotePending = new Map<string, RemotePending>()
    const ownerOf = (connectionId: string) => remote.get(connectionId)?.instanceId

    const refreshDirectory = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const rows = yield* directory.remoteConnections(instanceId, iso(now))
      const next = new Map<string, { readonly entry: ConnectionEntry; readonly instanceId: string }>()
      for (const r of rows) {
        try {
          next.set(r.connection_id, { entry: decodeEntry(r.entry, r.ready), instanceId: r.instance_id })
        } catch {
          // A row this version cannot read (written by hand, or by another version): not routable from here.
          yield* Effect.logWarning("backplane: a directory row does not decode").pipe(Effect.annotateLogs({ connection_id: r.connection_id }))
        }
      }
      remote = next
      for (const [key, pending] of remotePending) {
        if (remote.has(pending.connectionId)) continue
        remotePending.delete(key)
        Deferred.doneUnsafe(
          pending.deferred,
          Effect.fail(new PeerDisconnected({
            connectionId: pending.connectionId,
            requestId: pending.requestId,
            message: `connection ${pending.connectionId} closed`
          }))
        )
      }
    })

    const rowOf = (connection: ConnectionHandle, now: number): ConnectionRow => ({
      connection_id: connection.connectionId,
      instance_id: instanceId,
      role: connection.role,
      device_id: connection.deviceId,
      capabilities: JSON.stringify(connection.capabilities),
      ready: JSON.stringify([...connection.readyCapabilities]),
      entry: encodeEntry(connection),
      connected_at: connection.connectedAt,
      expires_at: iso(now + ttlMs)
    })

    // ---- delivery of events to this instance's connections ----
    /**
     * Ids of events published here, recorded before their transaction commits: this instance's connections get them
     * after the commit (`afterCommit`), so the worker skips their rows (and forgets them; a rolled-back id, which no
     * row ever shows, is forgotten after a while).
     */
    const publishedHere = new Map<number, number>()
    function* inAudienceHere(audience: NonNullable<Extract<OutboxMessage, { kind: "event" }>["audience"]>) {
      for (const connection of local.handles()) if (inAudience(connection, audience)) yield connection
    }
    const deliverEvent = (message: Extract<OutboxMessage, { kind: "event" }>): number =>
      message.connectionIds !== undefined
        ? local.write(message.connectionIds.map(local.handle), message.type, message.text)
        : local.write(inAudienceHere(message.audience ?? {}), message.type, message.text)

    // ---- outbox writes ----
    const append = (target: string | null, message: OutboxMessage, now: number) =>
      outbox.append(message.kind, target, JSON.stringify(message), iso(now))

    const writeEvent = (
      audience: Extract<OutboxMessage, { kind: "event" }>["audience"],
      connectionIds: ReadonlyArray<string> | undefined,
      type: string,
      payload: unknown,
      scope: unknown
    ): Effect.Effect<Published> =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const { envelope, text } = eventEnvelope(type, payload, now, scope)
        let delivered = 0
        if (connectionIds === undefined) {
          const message = { kind: "event", type, text, audience: audience ?? {} } as const
          // One transaction (a savepoint inside the caller's): the id is recorded before the row can be seen.
          yield* sql.withTransaction(Effect.gen(function*() {
            publishedHere.set(yield* append(null, message, now), now)
            // Runs when the outermost transaction commits: at once outside one, so `delivered` counts these recipients.
            yield* sql.afterCommit(Effect.sync(() => {
              delivered = deliverEvent(message)
            }))
          }))
        } else {
          const here: Array<string> = []
          const byOwner = new Map<string, Array<string>>()
          for (const id of connectionIds) {
            if (local.handle(id) !== undefined) here.push(id)
            else {
              const owner = ownerOf(id)
              if (owner !== undefined) byOwner.set(owner, [...(byOwner.get(owner) ?? []), id])
            }
          }
          for (const [owner, ids] of byOwner) yield* append(owner, { kind: "event", type, text, connectionIds: ids }, now)
          if (here.length > 0) {
            yield* sql.afterCommit(Effect.sync(() => {
              delivered = deliverEvent({ kind: "event", type, text, connectionIds: here })
            }))
          }
        }
        return { envelope, delivered }
      }).pipe(Effect.orDie)

    // ---- the worker: reads the outbox from this instance's cursor ----
    let cursor = (yield* outbox.cursor(instanceId)) ?? (yield* outbox.lastId)

    const answer = (message: Extract<OutboxMessage, { kind: "request" }>) =>
      local.backplane.request(message.connectionId, message.type, message.payload, {
        requestId: message.requestId,
        timeout: Duration.millis(message.timeoutMs)
      }).pipe(
        Effect.exit,
        Effect.flatMap((exit) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            append(message.origin, {
              kind: "reply",
              connectionId: message.connectionId,
              requestId: message.requestId,
              outcome: outcomeOf(exit)
            }, now))
        ),
        Effect.catchCause((cause) => Effect.logWarning("backplane: replying to a forwarded request failed").pipe(Effect.annotateLogs({ cause: Cause.pretty(cause) })))
      )

    const handleRow = (row: OutboxRow) =>
      Effect.gen(function*() {
        const id = Number(row.id)
        const message = JSON.parse(row.body) as OutboxMessage
        switch (message.kind) {
          case "event":
            if (!publishedHere.delete(id)) deliverEvent(message)
            return
          case "close":
            return yield* local.backplane.close(message.connectionId, message.code, message.reason)
          case "request":
            return yield* Effect.asVoid(Effect.forkIn(answer(message), scope))
          case "reply": {
            const key = pendingKey(message.connectionId, message.requestId)
            const pending = remotePending.get(key)
            if (pending === undefined) return
            remotePending.delete(key)
            const outcome = message.outcome
            Deferred.doneUnsafe(
              pending.deferred,
              outcome.ok ? Effect.succeed(outcome.result) : Effect.fail(outcomeError(message.connectionId, message.requestId, outcome))
            )
          }
        }
      })

    // The saved cursor only serves a restart with the same instance id (a new process starts at the end), so it is
    // saved at most every CURSOR_SAVE_INTERVAL_MS: one write less per read under load; such a restart may deliver up to
    // that much again (at-least-once, as documented).
    let savedCursor = cursor
    let savedAt = 0
    const drainOutbox = Effect.gen(function*() {
      while (true) {
        const now = yield* Clock.currentTimeMillis
        const rows = yield* outbox.after(cursor, instanceId, batchSize)
        for (const row of rows) {
          yield* handleRow(row)
          cursor = Number(row.id)
        }
        if (cursor !== savedCursor && now - savedAt >= CURSOR_SAVE_INTERVAL_MS) {
          yield* outbox.saveCursor(instanceId, cursor, iso(now))
          savedCursor = cursor
          savedAt = now
        }
        // A direct row (a node's scoped token, a request) has one reader: gone once delivered, not kept for the retention.
        if (rows.some((row) => row.target_instance_id !== null)) yield* outbox.deleteDelivered(instanceId, cursor)
        for (const [id, at] of publishedHere) if (at < now - PUBLISHED_MEMORY_MS) publishedHere.delete(id)
        if (rows.length < batchSize) return
      }
    })

    const wake = yield* Queue.sliding<"outbox" | "directory">(16)
    let directoryChanged = true
    const workerTurn = Effect.gen(function*() {
      const signal = yield* Effect.timeoutOption(Queue.take(wake), pollInterval)
      const signals = [...(signal._tag === "Some" ? [signal.value] : []), ...(yield* Queue.clear(wake))]
      // A poll (no signal) refreshes both: the fallback when notifications are lost.
      if (signal._tag === "None" || signals.includes("directory")) directoryChanged = true
      if (directoryChanged) {
        directoryChanged = false
        yield* refreshDirectory
      }
      yield* drainOutbox
    }).pipe(
      Effect.catchDefect((defect) =>
        Effect.logWarning("backplane: reading the outbox failed; retrying at the next poll").pipe(
          Effect.annotateLogs({ cause: String(defect) })
        )
      )
    )

    const outboxPrefix = `${schema}:outbox:`
    const pg = sql as unknown as Partial<PgClient.PgClient>
    if (options.listen !== false && Predicate.isFunction(pg.listen)) {
      const listenOnce = Effect.scoped(Effect.gen(function*() {
        const notifications = yield* pg.listen!(BACKPLANE_CHANNEL)
        yield* Queue.offer(wake, "directory") // anything missed while not listening
        while (true) {
          const notification = yield* Queue.take(notifications)
          const payload = notification.payload
          if (payload === `${schema}:directory`) Queue.offerUnsafe(wake, "directory")
          else if (payload.startsWith(outboxPrefix)) {
            // `<origin>:<target>`: not this instance's own row (delivered here at its commit), and for every instance or this one.
            const [origin, target] = payload.slice(outboxPrefix.length).split(":")
            if (origin !== instanceId && (target === "*" || target === instanceId)) Queue.offerUnsafe(wake, "outbox")
          }
        }
      }))
      yield* Effect.forkIn(
        listenOnce.pipe(
          Effect.catchCause((cause) => Effect.logWarning("backplane: LISTEN ended; polling until it is back").pipe(Effect.annotateLogs({ cause: Cause.pretty(cause) }))),
          Effect.repeat(Schedule.spaced(pollInterval))
        ),
        scope
      )
    }

    // ---- instance row, heartbeat, sweep and retention ----
    const startedAt = iso(yield* Clock.currentTimeMillis)
    yield* directory.upsertInstance({
      instance_id: instanceId,
      role: options.role ?? "all",
      version: options.version ?? GATEWAY_VERSION,
      started_at: startedAt,
      last_heartbeat_at: startedAt
    })
    yield* refreshDirectory
    yield* Effect.addFinalizer(() =>
      bestEffort("removing this instance")(Effect.andThen(directory.removeInstance(instanceId), outbox.notifyDirectory))
    )
    yield* Effect.forkIn(Effect.forever(workerTurn), scope)

    const heartbeat = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const refreshed = yield* directory.heartbeat(instanceId, iso(now), iso(now + ttlMs))
      // A row lost (a failed write, or swept while this instance was paused past the TTL) is written again.
      const missing = [...local.handles()].filter((connection) => !refreshed.has(connection.connectionId))
      for (const connection of missing) yield* directory.putConnection(rowOf(connection, now))
      // And a row of a connection no longer here (its unregister raced such a write) is deleted.
      const stale = [...refreshed].filter((id) => local.handle(id) === undefined)
      for (const id of stale) yield* directory.deleteConnection(id)
      if (missing.length > 0 || stale.length > 0) yield* outbox.notifyDirectory
      yield* Queue.offer(wake, "directory")
    })
    yield* Effect.forkIn(repeatEvery(bestEffort("the heartbeat")(heartbeat), Duration.millis(heartbeatMs)), scope)
    yield* jobs.schedule({
      name: "backplane.sweep",
      every: Duration.millis(ttlMs),
      run: bestEffort("the directory sweep and outbox retention")(Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        yield* directory.sweep(iso(now), iso(now - 10 * ttlMs))
        yield* outbox.prune(iso(now - retentionMs))
      }))
    })

    // ---- the service ----
    const request: Backplane["Service"]["request"] = (connectionId, type, payload, options) => {
      if (local.handle(connectionId) !== undefined) return local.backplane.request(connectionId, type, payload, options)
      const owner = ownerOf(connectionId)
      if (owner === undefined) {
        return Effect.fail(new PeerNotConnected({ connectionId, message: `connection ${connectionId} is not connected` }))
      }
      const requestId = options?.requestId ?? `${type}-${crypto.randomUUID()}`
      const timeout = options?.timeout ?? DEFAULT_PEER_REQUEST_TIMEOUT
      const deferred = Deferred.makeUnsafe<unknown, PeerRequestError>()
      const key = pendingKey(connectionId, requestId)
      remotePending.set(key, { connectionId, requestId, deferred })
      const message: OutboxMessage = { kind: "request", origin: instanceId, connectionId, requestId, type, payload, timeoutMs: Duration.toMillis(timeout) }
      return Effect.flatMap(Clock.currentTimeMillis, (now) => outsideTransaction(append(owner, message, now))).pipe(
        Effect.andThen(Deferred.await(deferred)),
        Effect.timeoutOrElse({
          duration: timeout,
          orElse: () => Effect.fail(new PeerRequestTimeout({ connectionId, requestId, message: `no answer to ${type} within the timeout` }))
        }),
        Effect.ensuring(Effect.sync(() => {
          if (remotePending.get(key)?.deferred === deferred) remotePending.delete(key)
        }))
      )
    }

    const connections = (): ReadonlyArray<ConnectionEntry> => {
      const all: Array<ConnectionEntry> = [...local.handles()]
      for (const { entry } of remote.values()) if (local.handle(entry.connectionId) === undefined) all.push(entry)
      // Stable: this instance's connections keep their order among equal times.
      return all.sort((a, b) => (a.connectedAt < b.connectedAt ? -1 : a.connectedAt > b.connectedAt ? 1 : 0))
    }

    const backplane: Backplane["Service"] = {
      register: Effect.fn("Backplane.register")(function*(connection) {
        yield* local.backplane.register(connection)
        const now = yield* Clock.currentTimeMillis
        yield* bestEffort("registering a connection")(
          Effect.andThen(directory.putConnection(rowOf(connection, now)), outbox.notifyDirectory)
        )
      }),
      unregister: Effect.fn("Backplane.unregister")(function*(connectionId) {
        const wasLocal = local.handle(connectionId) !== undefined
        yield* local.backplane.unregister(connectionId)
        if (wasLocal) {
          yield* bestEffort("unregistering a connection")(
            Effect.andThen(directory.deleteConnection(connectionId), outbox.notifyDirectory)
          )
        }
      }),
      lookup: (connectionId) => local.handle(connectionId) ?? remote.get(connectionId)?.entry,
      connections,
      size: () => {
        let n = 0
        for (const _ of local.handles()) n++
        for (const id of remote.keys()) if (local.handle(id) === undefined) n++
        return n
      },
      setReady: Effect.fn("Backplane.setReady")(function*(connectionId, ready) {
        const connection = local.handle(connectionId)
        if (connection === undefined) return
        yield* local.backplane.setReady(connectionId, ready)
        yield* bestEffort("updating a ready set")(
          Effect.andThen(directory.setReady(connectionId, JSON.stringify([...connection.readyCapabilities])), outbox.notifyDirectory)
        )
      }),
      publish: /* hot path: no span (docs/performance.md "Spans on the hot path") */ (audience, type, payload, scope) =>
        writeEvent(audience, undefined, type, payload, scope),
      sendTo: /* hot path: no span */ (connectionIds, type, payload, scope) => writeEvent(undefined, [...connectionIds], type, payload, scope),
      close: Effect.fn("Backplane.close")(function*(connectionId, code, reason) {
        if (local.handle(connectionId) !== undefined) {
          return yield* sql.afterCommit(local.backplane.close(connectionId, code, reason))
        }
        const owner = ownerOf(connectionId)
        if (owner === undefined) return
        const now = yield* Clock.currentTimeMillis
        yield* Effect.orDie(append(owner, { kind: "close", connectionId, code, reason }, now))
      }),
      request,
      reply: local.backplane.reply,
      pendingCount: () => local.backplane.pendingCount() + remotePending.size
    }

    const peers: BackplanePeers["Service"] = {
      instanceId,
      peers: Effect.flatMap(Clock.currentTimeMillis, (now) => directory.liveInstances(iso(now - ttlMs))).pipe(
        Effect.map((rows) => rows.map((r) => ({ ...r }))),
        Effect.withSpan("BackplanePeers.peers")
      ),
      holderOf: (connectionId) => (local.handle(connectionId) !== undefined ? instanceId : ownerOf(connectionId))
    }
    return { backplane, peers }
  })
