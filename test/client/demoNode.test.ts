/**
 * The demo node (`svc-gateway node`): role node, advertises and readies
 * demo.echo 1.0.0, echoes task.execute, persists its identity, and declares
 * readiness again after a reconnect.
 */
import { describe, expect, it } from "@effect/vitest"
import { eventually } from "../support/eventually.ts"
import { mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runDemoNode } from "../../src/client/demoNode.ts"
import { loadOrCreateDeviceIdentity } from "../../src/client/identity.ts"
import { rejectionOf, startFake } from "./support.ts"

const withDir = async (body: (dir: string) => Promise<void>) => {
  const dir = mkdtempSync(join(tmpdir(), "svc-demo-node-"))
  try {
    await body(dir)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe("runDemoNode", () => {
  it("connects as a node, readies demo.echo, echoes task.execute, and re-readies after a reconnect", () =>
    withDir(async (dir) => {
      const gateway = await startFake()
      const lines: Array<string> = []
      const identityPath = join(dir, "node", "device.json")
      const client = await runDemoNode({ url: gateway.url, token: gateway.token, identityPath, log: (l) => lines.push(l) })
      try {
        const identity = await loadOrCreateDeviceIdentity(identityPath)
        expect(statSync(identityPath).mode & 0o777).toBe(0o600)
        const peer = gateway.peers[0]!
        expect(peer.init.role).toBe("node")
        expect(peer.init.device["device_id"]).toBe(identity.device_id)
        expect(peer.init.capabilities).toEqual([{ id: "demo.echo", version: "1.0.0" }])
        expect(peer.received).toEqual([
          expect.objectContaining({ type: "capability.ready", payload: { capabilities: [{ id: "demo.echo", version: "1.0.0" }] } })
        ])

        const payload = { run_id: "r1", step_id: "s1", attempt_id: "a1", action: { type: "Echo", args: { text: "hi" } } }
        expect(await peer.request("task.execute", payload, "task-1")).toEqual({
          request_id: "task-1",
          type: "task.execute",
          ok: true,
          result: { result: { echoed: payload } }
        })

        const nextPeer = gateway.nextPeer()
        await peer.terminate()
        const again = await nextPeer
        await eventually(() => again.received.length > 0, "capability.ready after the reconnect")
        expect(again.received.map((m) => m["type"])).toEqual(["capability.ready"])
        expect(again.init.device["device_id"]).toBe(identity.device_id)

        expect(lines[0]).toMatch(new RegExp(`^\\[node\\] connected to 127\\.0\\.0\\.1:${gateway.port} as ${identity.device_id}`))
        expect(lines).toContain("[node] capabilities ready: demo.echo")
        expect(lines).toContain("[node] disconnected (code 1006), reconnecting")
        expect(lines.some((l) => l.startsWith("[node] reconnected to"))).toBe(true)
        expect(lines.join("\n")).not.toContain(gateway.token)
      } finally {
        await client.close()
      }
    }))

  it("rejects (and leaves nothing running) when the token is refused", () =>
    withDir(async (dir) => {
      const gateway = await startFake()
      const error = await rejectionOf(
        runDemoNode({ url: gateway.url, token: "wrong-token", identityPath: join(dir, "device.json"), log: () => undefined })
      )
      expect(error).toMatchObject({ code: "connection_closed", closeCode: 4001, fatal: true })
      expect(error.message).not.toContain("wrong-token")
    }))
})
