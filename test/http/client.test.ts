/**
 * The typed HTTP client (src/client/http.ts) is derived from the same
 * declaration the gateway serves: it calls real routes and decodes their
 * success and error bodies.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { FetchHttpClient, type HttpClient } from "effect/http"
import { makeGatewayHttpClient } from "../../src/client/http.ts"
import { startGateway, type TestGateway } from "../support/gateway.ts"

let gw: TestGateway
beforeAll(async () => {
  gw = await startGateway()
})
afterAll(() => gw.close())

// The generated methods' requirements are typed loosely by HttpApiClient; the only one is the HttpClient.
const run = <A, E>(effect: Effect.Effect<A, E, any>): Promise<A> =>
  Effect.runPromise(Effect.provide(effect as Effect.Effect<A, E, HttpClient.HttpClient>, FetchHttpClient.layer))

describe("typed HTTP client", () => {
  it("calls public and authenticated routes with their declared shapes", async () => {
    const result = await run(Effect.gen(function*() {
      const client = yield* makeGatewayHttpClient({ baseUrl: gw.url, token: gw.adminToken })
      const health = yield* client.health.healthz()
      const decision = yield* client.policy.check({ payload: { spend: { amount_minor_units: 60000, currency: "EUR" } } })
      const issued = yield* client.auth.issueDeviceToken({ payload: { device_id: "typed-client", role: "client", scopes: ["operator.read"] } })
      return { health, decision, issued }
    }))
    expect(result.health).toEqual({ status: "ok", is_exposed: false })
    expect(result.decision.decision).toBe("deny")
    expect(result.issued.device_id).toBe("typed-client")
    expect(result.issued.token).toMatch(/^svc-device\.v1\./)
  })

  it("decodes declared error bodies in the error channel", async () => {
    const error = await run(Effect.flip(Effect.gen(function*() {
      const client = yield* makeGatewayHttpClient({ baseUrl: gw.url, token: gw.adminToken })
      return yield* client.auth.revokeDeviceToken({ payload: { token: "svc-device.v1.never-issued" } })
    })))
    expect(error).toMatchObject({ error: "not_found", message: "token not found or already revoked" })
    const unauthorized = await run(Effect.flip(Effect.gen(function*() {
      const client = yield* makeGatewayHttpClient({ baseUrl: gw.url })
      return yield* client.diagnostics.presence({ query: {} })
    })))
    expect(unauthorized).toMatchObject({ error: "unauthorized" })
  })
})
