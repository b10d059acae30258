/**
 * What `SVC_ROLE` switches (issue 27 §1; docs/scaling.md "Roles"): an edge
 * instance starts no background job; a worker instance answers `/healthz`
 * and nothing else (404 naming the role), and no WebSocket upgrade.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Layer, Option } from "effect"
import { WebSocket } from "ws"
import { GatewayConfig } from "../../../layers/config.ts"
import { BackgroundJobs } from "../../../services/backplane/BackgroundJobs.ts"
import { RoleJobs } from "../../../services/cluster/roles.ts"
import { startGateway, type TestGateway, testSettings } from "../../support/gateway.ts"

/** Whether a singleton and a scheduled job declared under `role`'s jobs ran (after the fibers had their turn). */
const jobsRunUnder = (role: "all" | "edge" | "worker") =>
  Effect.scoped(Effect.gen(function*() {
    const ran = yield* Deferred.make<void>()
    const declare = Layer.effectDiscard(Effect.gen(function*() {
      const jobs = yield* BackgroundJobs
      yield* jobs.singleton({ name: "test.singleton", run: Deferred.succeed(ran, undefined).pipe(Effect.asVoid) })
      yield* jobs.schedule({ name: "test.schedule", every: "1 hour", run: Deferred.succeed(ran, undefined).pipe(Effect.asVoid) })
    }))
    yield* Layer.build(declare.pipe(Layer.provide(RoleJobs), Layer.provide(Layer.succeed(GatewayConfig, testSettings({ role })))))
    yield* Effect.yieldNow
    yield* Effect.yieldNow
    return Option.isSome(yield* Deferred.poll(ran))
  }))

describe("SVC_ROLE and background jobs", () => {
  it.effect("edge starts none; all and worker start them", () =>
    Effect.gen(function*() {
      expect(yield* jobsRunUnder("edge")).toBe(false)
      expect(yield* jobsRunUnder("all")).toBe(true)
      expect(yield* jobsRunUnder("worker")).toBe(true)
    }))
})

describe("SVC_ROLE=worker serves /healthz only", () => {
  let gw: TestGateway
  beforeAll(async () => {
    gw = await startGateway({ role: "worker" })
  })
  afterAll(() => gw.close())

  it("answers /healthz", async () => {
    const res = await gw.fetch("/healthz")
    expect(res.status).toBe(200)
  })

  it("answers every other route 404, naming the role, with or without credentials", async () => {
    for (const path of ["/status", "/approvals", "/ui", "/openapi.json", "/no/such/route"]) {
      const res = await gw.fetch(path, { headers: { authorization: `Bearer ${gw.adminToken}` } })
      expect([path, res.status]).toEqual([path, 404])
      const body = await res.json() as { error: string; message: string }
      expect(body.error).toBe("not_found")
      expect(body.message).toMatch(/SVC_ROLE=worker/)
    }
    expect((await gw.fetch("/status")).status).toBe(404)
  })

  it("refuses the WebSocket upgrade", async () => {
    const status = await new Promise<number | string>((resolve) => {
      const socket = new WebSocket(`${gw.url.replace(/^http/, "ws")}/ws`)
      socket.once("unexpected-response", (_request, response) => {
        resolve(response.statusCode ?? 0)
        socket.terminate()
      })
      socket.once("open", () => {
        resolve("open")
        socket.close()
      })
      socket.once("error", (error) => resolve(String(error.message)))
    })
    expect(status).toBe(404)
  })
})

describe("SVC_ROLE=edge serves clients", () => {
  it("answers /status", async () => {
    const gw = await startGateway({ role: "edge" })
    try {
      const res = await gw.fetch("/status", { headers: { authorization: `Bearer ${gw.adminToken}` } })
      expect(res.status).toBe(200)
    } finally {
      await gw.close()
    }
  })
})
