/**
 * Subagents survive a restart (issue 25 §3 "durably"; docs/agent.md
 * "Subagents"), on a SQLite file and, when SVC_TEST_DATABASE_URL is set, on
 * PostgreSQL, each shared by two builds of the layer (two "processes"):
 *
 * - messages a previous process accepted and left `queued` or `running` are
 *   answered, in order, by the worker of the next build (the agent subsystem's
 *   own layer, builtin/echo);
 * - a gateway stopped during a subagent turn (a runtime whose turn never
 *   ends, then the layer released) runs that turn again when it starts, and
 *   a message started {@link MAX_ATTEMPTS} times fails the subagent;
 * - closing a subagent during a turn cancels its queued messages, and the
 *   next process does not run the interrupted turn of the closed subagent.
 *
 * Waits are for the events (a fake connection's inbox) and rows, never a
 * fixed sleep.
 */
import { Wakes } from "../../../services/backplane/wakes.ts"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Layer } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { GatewayConfig } from "../../../layers/config.ts"
import { storageLayer } from "../../../layers/storage/Storage.ts"
import { AgentRuntime } from "../../../services/agent/AgentRuntime.ts"
import { AgentRepo, type AgentSessionRow } from "../../../services/agent/AgentRepo.ts"
import { AgentSubsystem } from "../../../services/agent/index.ts"
import { MAX_ATTEMPTS, Subagents } from "../../../services/agent/subagents/Subagents.ts"
import { SubagentsRepo } from "../../../services/agent/subagents/SubagentsRepo.ts"
import { AuditLog } from "../../../services/audit/AuditLog.ts"
import { ConnectionRegistry } from "../../../services/ws-sessions/ConnectionRegistry.ts"
import { EventBus } from "../../../services/ws-sessions/EventBus.ts"
import { fakeConnection } from "../../support/connections.ts"
import { postgresUrl, sharedPostgresSchema, type TestDatabaseServices } from "../../support/databases.ts"
import { testSettings } from "../../support/gateway.ts"

const scope = { tenant_id: "t1", agent_id: "worker", workspace_id: "ws1" }

/** Polls real time (5 ms steps, up to 10 s) until `check` holds. */
const settle = (check: () => boolean | Promise<boolean>) =>
  Effect.gen(function*() {
    const deadline = Date.now() + 10_000
    while (!(yield* Effect.promise(async () => check())) && Date.now() < deadline) yield* Effect.sleep(Duration.millis(5))
    expect(yield* Effect.promise(async () => check())).toBe(true)
  })

/** One database that several builds share: a SQLite file, or a PostgreSQL schema. */
interface SharedDatabase {
  readonly name: string
  readonly layer: () => Layer.Layer<TestDatabaseServices, unknown>
  readonly drop: () => Promise<void>
}

const sqliteShared = (): SharedDatabase => {
  const directory = mkdtempSync(join(tmpdir(), "svc-subagents-"))
  return {
    name: "sqlite (file)",
    layer: () => storageLayer({ kind: "sqlite", filename: join(directory, "gateway.db") }),
    drop: async () => rmSync(directory, { recursive: true, force: true })
  }
}

const backends: Array<{ readonly name: string; readonly make: () => Promise<SharedDatabase> }> = [
  { name: "sqlite (file)", make: async () => sqliteShared() },
  ...(postgresUrl === undefined ? [] : [{
    name: "postgresql",
    make: async () => {
      const shared = await sharedPostgresSchema(postgresUrl!)
      return { name: "postgresql", layer: shared.layer, drop: shared.drop }
    }
  }])
]

/** A reader of every event, registered in the build's connection registry. */
const listen = Effect.gen(function*() {
  const reader = fakeConnection({ id: `reader-${crypto.randomUUID()}` })
  yield* (yield* ConnectionRegistry).add(reader.handle)
  return reader
})

/** An `AgentRuntime` of which subagents use `sessionFor`, `turnIn` and `stopTurn`: `turnIn` runs `answer`. */
const stubRuntime = (answer: (message: string) => Effect.Effect<string>) => {
  const session = (threadId: string): AgentSessionRow => ({
    session_id: `s-${threadId}`,
    agent_id: scope.agent_id,
    channel: "subagent",
    thread_id: threadId,
    workspace_id: scope.workspace_id,
    model: null,
    summary: null,
    created_at: new Date(0).toISOString(),
    last_turn_at: null
  })
  const used: Pick<AgentRuntime["Service"], "sessionFor" | "turnIn" | "stopTurn"> = {
    sessionFor: (key) => Effect.succeed(session(key.threadId)),
    turnIn: (s, message) => Effect.map(answer(message), (reply) => ({ reply, session_id: s.session_id, used_tools: [], memory_written: false })),
    stopTurn: () => Effect.succeed(false)
  }
  return Layer.succeed(AgentRuntime, used as AgentRuntime["Service"])
}

for (const backend of backends) {
  describe(`subagents across a restart on ${backend.name}`, () => {
    let db: SharedDatabase
    /** One home for every build (a restart keeps it). */
    const settings = testSettings()
    beforeAll(async () => {
      db = await backend.make()
    })
    afterAll(async () => {
      await db.drop()
    })

    /** The agent subsystem's own layer (real runtime, builtin/echo) on the shared database. */
    const gatewayLayer = (agentEnabled: boolean) =>
      Layer.mergeAll(AgentSubsystem.layer, SubagentsRepo.layer, ConnectionRegistry.layer).pipe(
        Layer.provideMerge(AuditLog.layer),
        Layer.provideMerge(Layer.succeed(GatewayConfig, { ...settings, agentEnabled })),
        Layer.provideMerge(db.layer())
      )

    /** Subagents over `runtime` (a stand-in) on the shared database. */
    const stubLayer = (runtime: Layer.Layer<AgentRuntime>) =>
      Subagents.layerNoDeps.pipe(
        Layer.provideMerge(SubagentsRepo.layer),
        Layer.provideMerge(AgentRepo.layer),
        Layer.provideMerge(EventBus.layerNoDeps),
        Layer.provideMerge(Wakes.layerLocal),
        Layer.provideMerge(ConnectionRegistry.layer),
        Layer.provideMerge(runtime),
        Layer.provideMerge(Layer.succeed(GatewayConfig, { ...settings, agentEnabled: true })),
        Layer.provideMerge(db.layer())
      )

    it.live("answers, in order, the messages a previous process left queued or running", () =>
      Effect.gen(function*() {
        // The first process accepts two messages and stops before answering them (its worker is off), the
        // first one mid-turn (`running`).
        const { subagentId, messageIds } = yield* Effect.gen(function*() {
          const subagents = yield* Subagents
          const repo = yield* SubagentsRepo
          const { subagent } = yield* subagents.spawn({ ...scope, execution_profile: "durable" })
          yield* subagents.send({ ...scope, subagent_id: subagent.subagent_id, content: "first message" })
          yield* subagents.send({ ...scope, subagent_id: subagent.subagent_id, content: "second message" })
          const first = (yield* repo.nextMessage(subagent.subagent_id))!
          expect(yield* repo.claim(first.message_id, new Date().toISOString())).toBe(true)
          const second = first.message_id + 1
          expect((yield* repo.message(second))?.status).toBe("queued")
          return { subagentId: subagent.subagent_id, messageIds: [first.message_id, second] }
        }).pipe(Effect.provide(gatewayLayer(false)))

        // The next process picks them up as it starts.
        yield* Effect.gen(function*() {
          const repo = yield* SubagentsRepo
          const reader = yield* listen
          yield* settle(() => reader.events("subagent.output").length === 2)
          expect(reader.events("subagent.output").map((e) => [e.payload.message_id, e.payload.content])).toEqual([
            [messageIds[0], "first message"],
            [messageIds[1], "second message"]
          ])
          expect(reader.events("subagent.output")[0].payload).toMatchObject({ subagent_id: subagentId, kind: "final", lane: "subagent" })
          const rows = yield* Effect.forEach(messageIds, (id) => repo.message(id))
          expect(rows.map((r) => [r?.status, r?.attempts, r?.reply])).toEqual([["done", 2, "first message"], ["done", 1, "second message"]])
          expect(yield* repo.nextMessage(subagentId)).toBeUndefined()
          // The turns ran in the subagent's session with the real runtime: one context report each.
          const runtime = yield* AgentRuntime
          const session = yield* runtime.sessionFor({ agentId: scope.agent_id, channel: "subagent", threadId: subagentId })
          expect(yield* runtime.listReports({ session_id: session.session_id })).toHaveLength(2)
        }).pipe(Effect.provide(gatewayLayer(true)))
      }))

    it.live("runs a turn the gateway stopped during again when it starts; a message started too often fails the subagent", () =>
      Effect.gen(function*() {
        // First process: the turn starts and never ends; the process stops (the layer is released).
        const started = yield* Deferred.make<string>()
        const { subagentId, messageId } = yield* Effect.gen(function*() {
          const subagents = yield* Subagents
          const repo = yield* SubagentsRepo
          const { subagent } = yield* subagents.spawn({ ...scope, execution_profile: "interrupted" })
          yield* subagents.send({ ...scope, subagent_id: subagent.subagent_id, content: "long task" })
          expect(yield* Deferred.await(started)).toBe("long task")
          const message = (yield* repo.nextMessage(subagent.subagent_id))!
          expect(message).toMatchObject({ status: "running", attempts: 1 })
          return { subagentId: subagent.subagent_id, messageId: message.message_id }
        }).pipe(Effect.provide(stubLayer(stubRuntime((message) => Effect.andThen(Deferred.succeed(started, message), Effect.never)))))

        // Second process: the same message runs again and is answered.
        yield* Effect.gen(function*() {
          const repo = yield* SubagentsRepo
          const reader = yield* listen
          expect((yield* repo.message(messageId))?.status).toBe("running")
          yield* settle(() => reader.events("subagent.output").length === 1)
          expect(reader.events("subagent.output")[0].payload).toMatchObject({ subagent_id: subagentId, message_id: messageId, content: "done: long task" })
          expect(yield* repo.message(messageId)).toMatchObject({ status: "done", attempts: 2, reply: "done: long task" })
        }).pipe(Effect.provide(stubLayer(stubRuntime((message) => Effect.succeed(`done: ${message}`)))))

        // A message already started MAX_ATTEMPTS times (the gateway stopped during each) fails its subagent.
        const { poisoned } = yield* Effect.gen(function*() {
          const subagents = yield* Subagents
          const repo = yield* SubagentsRepo
          const { subagent } = yield* subagents.spawn({ ...scope, execution_profile: "poisoned" })
          yield* subagents.send({ ...scope, subagent_id: subagent.subagent_id, content: "crashes the gateway" })
          const message = (yield* repo.nextMessage(subagent.subagent_id))!
          for (let i = 0; i < MAX_ATTEMPTS; i++) yield* repo.claim(message.message_id, new Date().toISOString())
          return { poisoned: { subagentId: subagent.subagent_id, messageId: message.message_id } }
        }).pipe(Effect.provide(gatewayLayer(false)))
        yield* Effect.gen(function*() {
          const repo = yield* SubagentsRepo
          const reader = yield* listen
          yield* settle(() => reader.events("subagent.updated").length === 1)
          const updated = reader.events("subagent.updated")[0].payload
          expect(updated.subagent).toMatchObject({ subagent_id: poisoned.subagentId, status: "failed" })
          expect(updated.error).toBe(`the turn was started ${MAX_ATTEMPTS} times without finishing (the gateway stopped during each)`)
          expect(yield* repo.message(poisoned.messageId)).toMatchObject({ status: "failed", attempts: MAX_ATTEMPTS })
        }).pipe(Effect.provide(stubLayer(stubRuntime(() => Effect.die("never called")))))
      }))

    it.live("closing cancels the queued messages; the turn cut short by a stop is not run again for a closed subagent", () =>
      Effect.gen(function*() {
        const started = yield* Deferred.make<string>()
        const { subagentId, running, queued } = yield* Effect.gen(function*() {
          const subagents = yield* Subagents
          const repo = yield* SubagentsRepo
          const reader = yield* listen
          const { subagent } = yield* subagents.spawn({ ...scope, execution_profile: "closed-early" })
          yield* subagents.send({ ...scope, subagent_id: subagent.subagent_id, content: "slow" })
          yield* subagents.send({ ...scope, subagent_id: subagent.subagent_id, content: "never" })
          yield* Deferred.await(started)
          const running = (yield* repo.nextMessage(subagent.subagent_id))!
          const closed = yield* subagents.close({ ...scope, subagent_id: subagent.subagent_id })
          expect(closed.subagent.status).toBe("closed")
          expect(reader.events("subagent.updated").map((e) => e.payload.subagent.status)).toEqual(["closing"])
          expect(reader.events("subagent.closed")).toHaveLength(1)
          expect(yield* repo.message(running.message_id + 1)).toMatchObject({ status: "cancelled", error: "the subagent was closed" })
          return { subagentId: subagent.subagent_id, running: running.message_id, queued: running.message_id + 1 }
        }).pipe(Effect.provide(stubLayer(stubRuntime((message) => Effect.andThen(Deferred.succeed(started, message), Effect.never)))))

        yield* Effect.gen(function*() {
          const repo = yield* SubagentsRepo
          yield* settle(() => Effect.runPromise(Effect.map(repo.message(running), (m) => m?.status === "cancelled")) as Promise<boolean>)
          expect(yield* repo.message(running)).toMatchObject({ status: "cancelled", error: "the subagent is closed", attempts: 1 })
          expect((yield* repo.message(queued))?.status).toBe("cancelled")
          expect((yield* repo.get(subagentId))?.status).toBe("closed")
        }).pipe(Effect.provide(stubLayer(stubRuntime(() => Effect.die("a closed subagent runs no turn")))))
      }))
  })
}
