/**
 * GatewayClient after the handshake (reference §5.1, §5.3): request/response
 * correlation, `ok:false`, timeouts, pending requests on close, events, and
 * answers to gateway-initiated requests.
 */
import { describe, expect, it } from "@effect/vitest"
import { vi } from "vitest"
import { type GatewayClient, GatewayClientError, GatewayRequestError } from "../../src/client/GatewayClient.ts"
import type { WsEventEnvelope } from "../../services/ws-sessions/schema.ts"
import { eventually } from "../support/eventually.ts"
import { makeClient, nextEmit, record, rejectionOf, sleep, startFake } from "./support.ts"

const connected = async (overrides: Parameters<typeof makeClient>[1] = {}) => {
  const gateway = await startFake()
  const client = makeClient(gateway, overrides)
  await client.connect()
  return { gateway, client, peer: gateway.peers[0]! }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

describe("requests", () => {
  it("typed known requests: ping → undefined, presence.beacon → {entry}, capability.ready → undefined", async () => {
    const { client, peer } = await connected({ role: "node", capabilities: [{ id: "demo.echo" }] })
    const pong: void = await client.request("ping")
    expect(pong).toBeUndefined()
    const { entry } = await client.request("presence.beacon", { host: "box", mode: "node", last_input_seconds: 3 })
    expect(entry).toMatchObject({ instance_id: client.session!.device_id, host: "box", reason: "periodic" })
    expect(await client.request("capability.ready", { capabilities: [{ id: "demo.echo" }] })).toBeUndefined()
    expect(peer.received.map((m) => [m["type"], m["payload"]])).toEqual([
      ["ping", {}],
      ["presence.beacon", { host: "box", mode: "node", last_input_seconds: 3 }],
      ["capability.ready", { capabilities: [{ id: "demo.echo" }] }]
    ])
    for (const message of peer.received) expect(message["request_id"]).toMatch(UUID)
  })

  it("correlates concurrent responses by request_id, whatever their order", async () => {
    const { client, peer } = await connected()
    const delays = [80, 5, 40, 20, 60, 0]
    const results = await Promise.all(
      delays.map((ms, index) => client.request<{ ms: number; index: number }>("delay", { ms, index }))
    )
    expect(results).toEqual(delays.map((ms, index) => ({ ms, index })))
    expect(new Set(peer.received.map((m) => m["request_id"])).size).toBe(delays.length)
  })

  it("types known request payloads (checked by tsc)", () => {
    const typed = (client: GatewayClient) => {
      // @ts-expect-error capability.ready needs {capabilities}
      void client.request("capability.ready")
      // @ts-expect-error presence.beacon mode is an enumeration
      void client.request("presence.beacon", { mode: "desktop" })
      // @ts-expect-error approval.request handlers answer {approved}
      client.onRequest("approval.request", () => ({ accepted: true }))
      const beacon: Promise<{ readonly entry: { readonly instance_id: string } }> = client.request("presence.beacon")
      const generic: Promise<number> = client.request<number>("memory.get", { memory_item_id: "m" })
      return [beacon, generic]
    }
    expect(typeof typed).toBe("function")
  })

  it("generic requests resolve with the result as T", async () => {
    const { client } = await connected()
    const echoed = await client.request<{ readonly a: number }>("echo", { a: 1 })
    expect(echoed.a).toBe(1)
  })

  it("ok:false rejects with GatewayRequestError {code, message, details}", async () => {
    const { client } = await connected()
    const error = (await rejectionOf(client.request("fail", { x: 1 }))) as GatewayRequestError
    expect(error).toBeInstanceOf(GatewayRequestError)
    expect(error).toMatchObject({
      name: "GatewayRequestError",
      code: "invalid_request",
      message: "bad payload",
      details: { issues: ["x"] },
      requestType: "fail"
    })
    expect(error.requestId).toMatch(UUID)
    const unknown = (await rejectionOf(client.request("no.such.type"))) as GatewayRequestError
    expect(unknown.code).toBe("unsupported_request")
  })

  it("times out (per request or per client) and ignores the late response", async () => {
    const { gateway, client } = await connected({ requestTimeoutMs: 60 })
    // Timers are faked from here on: the timeouts fire when the test moves time, never because the machine is slow.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] })
    try {
      const perRequestP = rejectionOf(client.request("never", {}, { timeoutMs: 30 }))
      await vi.advanceTimersByTimeAsync(29)
      const byDefaultP = rejectionOf(client.request("delay", { ms: 150 }))
      await vi.advanceTimersByTimeAsync(1)
      const perRequest = (await perRequestP) as GatewayClientError
      expect(perRequest).toBeInstanceOf(GatewayClientError)
      expect(perRequest).toMatchObject({ code: "timeout", message: "never timed out after 30 ms" })
      await vi.advanceTimersByTimeAsync(60)
      expect(await byDefaultP).toMatchObject({ code: "timeout", message: "delay timed out after 60 ms" })
      const errors = record(client, "error")
      const lateAnswers = gateway.answered
      await vi.advanceTimersByTimeAsync(150) // the fake gateway now sends the late response: it is dropped
      await eventually(() => gateway.answered > lateAnswers, "the late response to be sent")
      expect(await client.request("echo", { still: "working" })).toEqual({ still: "working" })
      expect(errors).toEqual([])
      expect(gateway.upgrades).toHaveLength(1)
    } finally {
      vi.useRealTimers()
    }
  })

  it("rejects pending requests with `connection closed` when the socket drops", async () => {
    const { client, peer } = await connected()
    const pending = [client.request("never"), client.request("never", { other: true })].map(rejectionOf)
    await sleep(20)
    await peer.terminate()
    for (const error of (await Promise.all(pending)) as Array<GatewayClientError>) {
      expect(error).toBeInstanceOf(GatewayClientError)
      expect(error.code).toBe("connection_closed")
      expect(error.message).toMatch(/^connection closed \(code 1006\)/)
    }
    expect(client.state).toBe("idle")
    const notConnected = (await rejectionOf(client.request("ping"))) as GatewayClientError
    expect(notConnected).toMatchObject({ code: "not_connected", message: "cannot send ping: not connected" })
  })

  it("rejects pending requests when the gateway closes with a code, and on close()", async () => {
    const first = await connected()
    const pending = rejectionOf(first.client.request("never"))
    await sleep(20)
    await first.peer.close(4003, "invalid json")
    expect(await pending).toMatchObject({
      code: "connection_closed",
      closeCode: 4003,
      closeReason: "invalid json",
      message: "connection closed (code 4003 invalid json)"
    })

    const second = await connected()
    const pendingOnClose = rejectionOf(second.client.request("never"))
    await second.client.close()
    expect(await pendingOnClose).toMatchObject({
      code: "connection_closed",
      message: "connection closed: client closed"
    })
    expect((await second.peer.closed).code).toBe(1000)
  })

  it("a request before connect() rejects with not_connected", async () => {
    const gateway = await startFake()
    const client = makeClient(gateway)
    expect(await rejectionOf(client.request("ping"))).toMatchObject({ code: "not_connected" })
  })
})

describe("events", () => {
  it("delivers event envelopes to on('event') listeners in order", async () => {
    const { client, peer } = await connected()
    const events = record(client, "event")
    const last = new Promise<void>((resolve) => client.on("event", (e) => e.type === "done" && resolve()))
    const id = peer.sendEvent("presence.upserted", { entry: { instance_id: "x" } }, { kind: "global" })
    peer.sendEvent("run.updated", { run_id: "r1" })
    peer.sendEvent("done", null)
    await last
    expect(events.map((e) => e.type)).toEqual(["presence.upserted", "run.updated", "done"])
    expect(events[0]).toMatchObject({
      event_id: id,
      type: "presence.upserted",
      payload: { entry: { instance_id: "x" } },
      scope: { kind: "global" }
    })
    expect(Number.isNaN(Date.parse(events[0]!.occurred_at))).toBe(false)
    expect(events[1]!.scope).toBeUndefined()
  })

  it("events(filter) yields matching events; break unsubscribes; close() ends iterators", async () => {
    const { client, peer } = await connected()
    const work = client.events("work.*")
    const exact = client.events(["run.updated"])
    const predicate = client.events((e) => (e.payload as { n?: number } | null)?.n === 2)
    peer.sendEvent("work.item.created", { n: 1 })
    peer.sendEvent("run.updated", { n: 2 })
    peer.sendEvent("workshop", { n: 3 })
    peer.sendEvent("work.item.updated", { n: 4 })

    const seen: Array<WsEventEnvelope> = []
    for await (const event of work) {
      seen.push(event)
      if (seen.length === 2) break
    }
    expect(seen.map((e) => e.type)).toEqual(["work.item.created", "work.item.updated"])
    expect((await work.next()).done).toBe(true)

    expect((await exact.next()).value).toMatchObject({ type: "run.updated" })
    expect((await predicate.next()).value).toMatchObject({ type: "run.updated" })
    const pending = exact.next()
    await client.close()
    expect(await pending).toEqual({ done: true, value: undefined })
    expect((await predicate.next()).done).toBe(true)
    expect((await client.events().next()).done).toBe(true)
  })

  it("reports unparsable messages on 'error' and keeps the connection", async () => {
    const { client, peer } = await connected()
    const error = nextEmit(client, "error")
    peer.sendRaw("{oops")
    expect(await error).toMatchObject({ code: "protocol_error", message: "gateway sent a message that is not valid JSON" })
    const shape = nextEmit(client, "error")
    peer.sendRaw(JSON.stringify({ hello: 1 }))
    expect(await shape).toMatchObject({ code: "protocol_error" })
    expect(await client.request("echo", 1)).toBe(1)
  })

  it("a throwing listener is reported on 'error' and does not stop other listeners", async () => {
    const { client, peer } = await connected()
    client.on("event", () => {
      throw new Error("listener bug")
    })
    const delivered = nextEmit(client, "event")
    const reported = nextEmit(client, "error")
    peer.sendEvent("x.y", {})
    expect((await delivered).type).toBe("x.y")
    expect((await reported).message).toBe('a "event" listener threw: Error: listener bug')
  })
})

describe("gateway-initiated requests", () => {
  it("answers with the handler's result under the same request_id and type", async () => {
    const { client, peer } = await connected({ role: "node" })
    client.onRequest("task.execute", async (payload, envelope) => {
      await sleep(5)
      return { result: { got: payload.action, id: envelope.request_id } }
    })
    const response = await peer.request("task.execute", { run_id: "r", step_id: "s", attempt_id: "a", action: { type: "Http" } }, "task-1")
    expect(response).toEqual({
      request_id: "task-1",
      type: "task.execute",
      ok: true,
      result: { result: { got: { type: "Http" }, id: "task-1" } }
    })
  })

  it("a handler that throws answers ok:false with the error's code (else handler_error) and details", async () => {
    const { client, peer } = await connected()
    client.onRequest("approval.request", () => {
      throw Object.assign(new Error("operator away"), { code: "busy", details: { retry_after_s: 5 } })
    })
    expect(await peer.request("approval.request", { approval_id: 1 }, "approval-1")).toEqual({
      request_id: "approval-1",
      type: "approval.request",
      ok: false,
      error: { code: "busy", message: "operator away", details: { retry_after_s: 5 } }
    })
    client.onRequest("custom.thing", async () => {
      throw new Error("boom")
    })
    expect(await peer.request("custom.thing", {}, "c-1")).toEqual({
      request_id: "c-1",
      type: "custom.thing",
      ok: false,
      error: { code: "handler_error", message: "boom" }
    })
  })

  it("an unknown type answers ok:false unsupported_request; ping is answered by default", async () => {
    const { client, peer } = await connected()
    expect(await peer.request("mystery.request", {}, "m-1")).toEqual({
      request_id: "m-1",
      type: "mystery.request",
      ok: false,
      error: { code: "unsupported_request", message: "request not supported: mystery.request" }
    })
    expect(await peer.request("ping", {}, "ping-1")).toEqual({ request_id: "ping-1", type: "ping", ok: true })
    const off = client.onRequest("mystery.request", () => "now supported")
    expect((await peer.request("mystery.request", {}, "m-2"))["result"]).toBe("now supported")
    off()
    expect((await peer.request("mystery.request", {}, "m-3"))["ok"]).toBe(false)
  })
})
