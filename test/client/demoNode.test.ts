/**
 * The demo node (`svc-gateway node`): role node, advertises demo.echo 1.0.0,
 * waits for approval on its bootstrap token, stores the scoped token next to
 * its identity and reconnects with it, then readies demo.echo (again after a
 * reconnect and a restart), sends attempt.evidence and echoes task.execute,
 * and goes back to pending when its pairing is revoked. Never logs a token.
 */
import { describe, expect, it } from "@effect/vitest"
import { randomBytes } from "node:crypto"
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runDemoNode } from "../../src/client/demoNode.ts"
import { loadOrCreateDeviceIdentity } from "../../src/client/identity.ts"
import { fileScopedTokenStore } from "../../src/client/scopedToken.ts"
import { eventually } from "../support/eventually.ts"
import { nextEmit, rejectionOf, startFake } from "./support.ts"

const withDir = async (body: (dir: string) => Promise<void>) => {
  const dir = mkdtempSync(join(tmpdir(), "svc-demo-node-"))
  try {
    await body(dir)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** A fake gateway that accepts a scoped token, and a node identity in `dir` that has that token stored. */
const pairedNode = async (dir: string) => {
  const gateway = await startFake()
  const identityPath = join(dir, "device.json")
  const identity = await loadOrCreateDeviceIdentity(identityPath)
  const token = `svc-node.v1.${randomBytes(32).toString("base64url")}`
  gateway.acceptedTokens.add(token)
  await fileScopedTokenStore(`${identityPath}.token`).save({
    scoped_token: token,
    device_id: identity.device_id,
    gateway: `ws://127.0.0.1:${gateway.port}/ws`
  })
  return { gateway, identityPath, identity, token }
}

const READY = { type: "capability.ready", payload: { capabilities: [{ id: "demo.echo", version: "1.0.0" }] } }

describe("runDemoNode", () => {
  it("waits for approval on its bootstrap token, then reconnects with the stored scoped token and readies demo.echo", () =>
    withDir(async (dir) => {
      const gateway = await startFake()
      const lines: Array<string> = []
      const identityPath = join(dir, "node", "device.json")
      const client = await runDemoNode({ url: gateway.url, token: gateway.token, identityPath, log: (l) => lines.push(l) })
      try {
        const identity = await loadOrCreateDeviceIdentity(identityPath)
        expect(statSync(identityPath).mode & 0o777).toBe(0o600)
        const pending = gateway.peers[0]!
        expect(pending.init.role).toBe("node")
        expect(pending.init.device["device_id"]).toBe(identity.device_id)
        expect(pending.init.capabilities).toEqual([{ id: "demo.echo", version: "1.0.0" }])
        expect(pending.received).toEqual([])
        expect(lines).toEqual([
          `[node] connected to 127.0.0.1:${gateway.port} as ${identity.device_id} with the bootstrap token (client ${pending.clientId})`,
          `[node] pending operator approval: pairing requested for ${identity.device_id} (see GET /pairings)`
        ])

        const token = `svc-node.v1.${randomBytes(32).toString("base64url")}`
        gateway.acceptedTokens.add(token)
        const paired = gateway.nextPeer()
        pending.sendEvent("pairing.approved", {
          pairing: { pairing_id: 3, status: "approved", trust_level: "local", node: { node_id: identity.device_id } },
          scoped_token: token
        })
        const peer = await paired
        expect(peer.upgrade.token).toBe(token)
        await eventually(() => peer.received.length > 0, "capability.ready on the scoped connection")
        expect(peer.received).toEqual([expect.objectContaining(READY)])
        const stored = await fileScopedTokenStore(`${identityPath}.token`).load()
        expect(stored).toMatchObject({ scoped_token: token, device_id: identity.device_id, pairing_id: 3 })
        expect(statSync(`${identityPath}.token`).mode & 0o777).toBe(0o600)
        expect(lines).toContain("[node] paired: pairing 3 approved (trust local); reconnecting with the scoped token")
        expect(lines).toContain("[node] capabilities ready: demo.echo")

        expect(lines.join("\n")).not.toContain(token)
        expect(lines.join("\n")).not.toContain(gateway.token)
      } finally {
        await client.close()
      }
    }))

  it("sends attempt.evidence before answering task.execute with an echo; re-readies after a reconnect and a restart", () =>
    withDir(async (dir) => {
      const { gateway, identityPath, token } = await pairedNode(dir)
      gateway.handlers.set("attempt.evidence", () => ({ ok: true }))
      const lines: Array<string> = []
      // No bootstrap token: the stored scoped token is enough.
      let client = await runDemoNode({ url: gateway.url, identityPath, log: (l) => lines.push(l), reconnect: { initialDelayMs: 1, maxDelayMs: 1 } })
      try {
        const peer = gateway.peers[0]!
        expect(peer.upgrade.token).toBe(token)
        expect(peer.received).toEqual([expect.objectContaining(READY)])

        const payload = { run_id: "r1", step_id: "s1", attempt_id: "a1", action: { type: "Echo", args: { text: "hi" } } }
        expect(await peer.request("task.execute", payload, "task-1")).toEqual({
          request_id: "task-1",
          type: "task.execute",
          ok: true,
          result: { result: { echoed: payload } }
        })
        expect(peer.received.slice(1)).toEqual([
          expect.objectContaining({
            type: "attempt.evidence",
            payload: { run_id: "r1", step_id: "s1", attempt_id: "a1", evidence: { echoed_at: expect.any(String) } }
          })
        ])
        // Without run/step/attempt ids there is no attempt to report on: just the echo.
        expect((await peer.request("task.execute", { action: "hello" }))["result"]).toEqual({ result: { echoed: { action: "hello" } } })
        expect(peer.received).toHaveLength(2)

        const nextPeer = gateway.nextPeer()
        await peer.terminate()
        const again = await nextPeer
        await eventually(() => again.received.length > 0, "capability.ready after the reconnect")
        expect(again.received).toEqual([expect.objectContaining(READY)])
        expect(again.upgrade.token).toBe(token)
        expect(lines).toContain("[node] disconnected (code 1006), reconnecting")
        expect(lines.some((l) => l.startsWith("[node] reconnected to") && l.includes("with its scoped token"))).toBe(true)

        await client.close()
        client = await runDemoNode({ url: gateway.url, identityPath, log: (l) => lines.push(l) })
        expect(gateway.peers.at(-1)!.received).toEqual([expect.objectContaining(READY)])
        expect(lines.join("\n")).not.toContain(token)
      } finally {
        await client.close()
      }
    }))

  it("goes back to pending on its bootstrap token when the pairing is revoked (and forgets the scoped token)", () =>
    withDir(async (dir) => {
      const { gateway, identityPath, identity, token } = await pairedNode(dir)
      const lines: Array<string> = []
      const client = await runDemoNode({ url: gateway.url, token: gateway.token, identityPath, log: (l) => lines.push(l) })
      try {
        gateway.acceptedTokens.delete(token)
        const back = nextEmit(client, "connected")
        await gateway.peers[0]!.close(4001, "pairing revoked")
        expect(await back).toMatchObject({ paired: false })
        expect(gateway.peers[1]!.upgrade.token).toBe(gateway.token)
        expect(gateway.peers[1]!.received).toEqual([])
        expect(existsSync(`${identityPath}.token`)).toBe(false)
        expect(lines).toContain("[node] scoped token refused (code 4001 pairing revoked); back to the bootstrap token (pending approval again)")
        expect(lines.at(-1)).toBe(`[node] pending operator approval: pairing requested for ${identity.device_id} (see GET /pairings)`)
        expect(lines.join("\n")).not.toContain(token)
      } finally {
        await client.close()
      }
    }))

  it("rejects (and leaves nothing running) when the token is refused, or when there is no credential at all", () =>
    withDir(async (dir) => {
      const gateway = await startFake()
      const error = await rejectionOf(
        runDemoNode({ url: gateway.url, token: "wrong-token", identityPath: join(dir, "device.json"), log: () => undefined })
      )
      expect(error).toMatchObject({ code: "connection_closed", closeCode: 4001, fatal: true })
      expect(error.message).not.toContain("wrong-token")
      const none = await rejectionOf(runDemoNode({ url: gateway.url, identityPath: join(dir, "device.json"), log: () => undefined }))
      expect(none).toMatchObject({ code: "invalid_options", fatal: true })
      expect(gateway.upgrades).toHaveLength(1)
    }))
})
