/**
 * GatewayClient reconnects (exponential backoff, full jitter, handshake
 * redone) after a non-fatal drop, and never after a fatal close code
 * (reference §5.2 table) or `close()`.
 */
import { describe, expect, it } from "@effect/vitest"
import { GatewayClientError } from "../../src/client/GatewayClient.ts"
import { makeClient, nextEmit, record, rejectionOf, sleep, startFake } from "./support.ts"

const policy = { initialDelayMs: 40, maxDelayMs: 100 }

describe("reconnect", () => {
  it("reconnects after the socket drops, redoing the handshake", async () => {
    const gateway = await startFake()
    const client = makeClient(gateway, { reconnect: policy, role: "node", capabilities: [{ id: "demo.echo" }] })
    const first = await client.connect()
    const disconnected = nextEmit(client, "disconnected")
    const reconnecting = nextEmit(client, "reconnecting")
    const reconnected = nextEmit(client, "connected")
    const nextPeer = gateway.nextPeer()
    await gateway.peers[0]!.terminate()

    expect(await disconnected).toEqual({ code: 1006, reason: "", fatal: false, willReconnect: true })
    expect(client.state).toBe("reconnecting")
    const { attempt, delayMs } = await reconnecting
    expect(attempt).toBe(1)
    expect(delayMs).toBeGreaterThanOrEqual(0)
    expect(delayMs).toBeLessThanOrEqual(policy.initialDelayMs)
    const info = await reconnected
    expect(info.reconnected).toBe(true)
    expect(info.client_id).not.toBe(first.client_id)
    expect(info.device_id).toBe(first.device_id)
    const peer = await nextPeer
    expect(peer.init.capabilities).toEqual([{ id: "demo.echo" }])
    expect(client.state).toBe("connected")
    expect(client.session).toEqual({ client_id: info.client_id, device_id: info.device_id, role: "node" })
    expect(await client.request("echo", "again")).toBe("again")
    expect(gateway.upgrades).toHaveLength(2)
  })

  it("backs off exponentially with full jitter while attempts fail, then recovers", async () => {
    const gateway = await startFake()
    const client = makeClient(gateway, { reconnect: policy })
    await client.connect()
    const attempts = record(client, "reconnecting")
    const errors = record(client, "error")
    const reconnected = nextEmit(client, "connected")
    gateway.rejectUpgrades = { count: 3, status: 503 }
    await gateway.peers[0]!.terminate()
    await reconnected

    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4])
    attempts.forEach(({ attempt, delayMs }) => {
      expect(delayMs).toBeGreaterThanOrEqual(0)
      expect(delayMs).toBeLessThanOrEqual(Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (attempt - 1)))
    })
    expect(errors).toHaveLength(3)
    for (const error of errors) expect(error).toMatchObject({ code: "upgrade_rejected", httpStatus: 503, fatal: false })
    expect(gateway.upgrades).toHaveLength(4 + 1 - 3) // rejected upgrades never reach `connection`
    // a later drop starts again from attempt 1
    const again = nextEmit(client, "reconnecting")
    await gateway.peers[1]!.terminate()
    expect((await again).attempt).toBe(1)
  })

  it("gives up after maxAttempts with reconnect_exhausted; connect() while reconnecting rejects then", async () => {
    const gateway = await startFake()
    const client = makeClient(gateway, { reconnect: { ...policy, maxAttempts: 2 } })
    await client.connect()
    gateway.rejectUpgrades = { count: 100, status: 502 }
    const disconnected = nextEmit(client, "disconnected")
    await gateway.peers[0]!.terminate()
    await disconnected
    const waiting = rejectionOf(client.connect())
    const errors = record(client, "error")
    const error = await waiting
    expect(error).toMatchObject({ code: "reconnect_exhausted", fatal: true, message: "gave up reconnecting after 2 attempts" })
    expect(errors.map((e) => (e as GatewayClientError).code)).toEqual(["upgrade_rejected", "upgrade_rejected", "reconnect_exhausted"])
    expect(client.state).toBe("idle")
    // an explicit connect() afterwards tries again
    gateway.rejectUpgrades = { count: 0, status: 502 }
    expect((await client.connect()).role).toBe("client")
  })

  it("connect() while reconnecting resolves with the new session", async () => {
    const gateway = await startFake()
    const client = makeClient(gateway, { reconnect: policy })
    await client.connect()
    const disconnected = nextEmit(client, "disconnected")
    await gateway.peers[0]!.terminate()
    await disconnected
    const session = await client.connect()
    expect(session.client_id).toBe(gateway.peers[1]!.clientId)
    expect(gateway.upgrades).toHaveLength(2)
  })

  it.each([
    [4001, "unauthorized"],
    [4007, "invalid proof"],
    [4002, "handshake timeout"],
    [4003, "invalid json"],
    [4005, "protocol_rev mismatch"],
    [4006, "device_id mismatch"],
    [4008, "scoped token mismatch"]
  ])("does not reconnect after close code %i (%s)", async (code, reason) => {
    const gateway = await startFake()
    const client = makeClient(gateway, { reconnect: { initialDelayMs: 1, maxDelayMs: 1 } })
    await client.connect()
    const reconnecting = record(client, "reconnecting")
    const disconnected = nextEmit(client, "disconnected")
    await gateway.peers[0]!.close(code, reason)
    expect(await disconnected).toEqual({ code, reason, fatal: true, willReconnect: false })
    await sleep(80)
    expect(reconnecting).toEqual([])
    expect(gateway.upgrades).toHaveLength(1)
    expect(client.state).toBe("idle")
  })

  it("stops when a reconnect attempt is refused fatally (token revoked → 4001)", async () => {
    const gateway = await startFake()
    const client = makeClient(gateway, { reconnect: { initialDelayMs: 1, maxDelayMs: 1 } })
    await client.connect()
    gateway.token = "rotated"
    const failure = nextEmit(client, "error")
    await gateway.peers[0]!.terminate()
    expect(await failure).toMatchObject({ code: "connection_closed", closeCode: 4001, fatal: true })
    await sleep(50)
    expect(gateway.upgrades).toHaveLength(2)
    expect(client.state).toBe("idle")
  })

  it("reports 1013 slow consumer (and 1009) on 'error', then reconnects", async () => {
    const gateway = await startFake()
    const client = makeClient(gateway, { reconnect: policy })
    await client.connect()
    for (const [index, [code, reason]] of [
      [1013, "slow consumer"],
      [1009, "message too big"]
    ].entries()) {
      const reported = nextEmit(client, "error")
      const reconnected = nextEmit(client, "connected")
      await gateway.peers[index]!.close(code as number, reason as string)
      expect(await reported).toMatchObject({
        code: "connection_closed",
        closeCode: code,
        message: `gateway closed the connection (code ${code} ${reason})`
      })
      expect((await reconnected).reconnected).toBe(true)
    }
  })

  it("never reconnects after close(), even from a scheduled attempt", async () => {
    const gateway = await startFake()
    const client = makeClient(gateway, { reconnect: { initialDelayMs: 60, maxDelayMs: 60 } })
    await client.connect()
    const disconnected = record(client, "disconnected")
    await client.close()
    expect(disconnected).toEqual([{ code: 1000, reason: "client closed", fatal: false, willReconnect: false }])
    expect(client.state).toBe("closed")

    const second = makeClient(gateway, { reconnect: { initialDelayMs: 60, maxDelayMs: 60 } })
    await second.connect()
    const scheduled = nextEmit(second, "reconnecting")
    await gateway.peers[1]!.terminate()
    await scheduled
    await second.close()
    await sleep(120)
    expect(gateway.upgrades).toHaveLength(2)
    expect(await rejectionOf(second.connect())).toMatchObject({ code: "connection_closed", message: "client is closed" })
  })

  it("reconnect: false stays disconnected", async () => {
    const gateway = await startFake()
    const client = makeClient(gateway, { reconnect: false })
    await client.connect()
    const disconnected = nextEmit(client, "disconnected")
    await gateway.peers[0]!.terminate()
    expect(await disconnected).toMatchObject({ fatal: false, willReconnect: false })
    await sleep(50)
    expect(gateway.upgrades).toHaveLength(1)
    expect(client.state).toBe("idle")
  })
})
