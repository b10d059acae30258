/**
 * Node request types over WebSocket (docs/nodes.md): `capability.ready` and
 * `attempt.evidence` with real node peers paired over HTTP, including a node
 * that reconnects with its scoped node token; evidence is accepted only from
 * the node executing the attempt, within 256 KiB characters. Its
 * `attachments` are stored as artifacts of the attempt (`artifact.attached`,
 * listed in the dispatch's answer and by `Artifacts.listForAttempt`), with
 * invalid ones refused (`invalid_request`) and quotas enforced (`quota_exceeded`).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Artifacts } from "../../services/artifacts/Artifacts.ts"
import { MAX_ATTACHMENT_BYTES, MAX_EVIDENCE_CHARS } from "../../services/nodes/schema.ts"
import { eventually } from "../support/eventually.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { bearer, connectNode, serveTasks, type TestNode } from "../support/nodePeer.ts"
import { connectPeer, makeIdentity } from "../support/wsPeer.ts"

const CLI = { id: "cli.exec", version: "1.0.0" }

let gw: TestGateway
beforeAll(async () => {
  gw = await startGateway({ rateLimitMax: 10_000 })
})
afterAll(() => gw.close())

/** Starts a dispatch to `node` that the node holds unanswered; resolves with the task it received, and `answer` to finish it. */
const holdTask = async (node: TestNode) => {
  let release: (() => void) | undefined
  const tasks = serveTasks(node.peer, (m) => {
    release = () => node.peer.send({ request_id: m.request_id, type: m.type, ok: true })
    return undefined
  })
  const response = postJson(gw, `/nodes/${node.nodeId}/dispatch`, { capability: "cli.exec", action: {} }, gw.adminToken)
  await eventually(() => tasks.length === 1, "the task to reach the node")
  const { run_id, step_id, attempt_id } = tasks[0].payload
  return {
    ids: { run_id, step_id, attempt_id } as { run_id: string; step_id: string; attempt_id: string },
    finish: async () => {
      release!()
      return response
    }
  }
}

describe("capability.ready", () => {
  it("is for nodes only, and announces the ready set (advertised ∩ declared) to operators", async () => {
    const operator = await connectPeer(gw.url, gw.adminToken)
    const client = await connectPeer(gw.url, gw.adminToken)
    expect((await client.peer.request("capability.ready", { capabilities: [] })).error.code).toBe("unauthorized")
    const node = await connectNode(gw, { advertised: [CLI, { id: "desktop.screenshot" }], allowlist: [CLI] })
    const res = await node.peer.request("capability.ready", { capabilities: [{ id: "cli.exec" }, { id: "not.advertised" }] })
    expect(res).toMatchObject({ ok: true })
    const event = await operator.peer.next((m) => m.type === "capability.ready" && m.payload.node_id === node.nodeId)
    expect(event).toMatchObject({ payload: { node_id: node.nodeId, capabilities: [CLI] }, scope: { kind: "node", node_id: node.nodeId } })
    const invalid = await node.peer.request("capability.ready", { capabilities: [{ id: "NOT VALID" }] })
    expect(invalid.error.code).toBe("invalid_request")
    for (const p of [operator.peer, client.peer, node.peer]) p.ws.close()
  })
})

describe("attempt.evidence", () => {
  it("is accepted from the node executing the attempt and broadcast; refused from any other node, for unknown attempts and from clients", async () => {
    const operator = await connectPeer(gw.url, gw.adminToken)
    const executing = await connectNode(gw, { advertised: [CLI], allowlist: [CLI], ready: ["cli.exec"] })
    const other = await connectNode(gw, { advertised: [CLI], allowlist: [CLI], ready: ["cli.exec"] })
    const task = await holdTask(executing)

    const ok = await executing.peer.request("attempt.evidence", { ...task.ids, evidence: { frame: 1 } })
    expect(ok).toMatchObject({ type: "attempt.evidence", ok: true })
    expect(ok).not.toHaveProperty("result")
    const event = await operator.peer.next((m) => m.type === "attempt.evidence")
    expect(event).toMatchObject({ payload: { node_id: executing.nodeId, ...task.ids, evidence: { frame: 1 } }, scope: { kind: "run", run_id: task.ids.run_id } })

    const forbidden = await other.peer.request("attempt.evidence", { ...task.ids, evidence: { frame: 2 } })
    expect(forbidden.error).toEqual({ code: "forbidden", message: `attempt ${task.ids.attempt_id} is executed by another node` })
    const unknown = await executing.peer.request("attempt.evidence", { ...task.ids, attempt_id: "no-such-attempt", evidence: {} })
    expect(unknown.error.code).toBe("not_found")
    const fromClient = await operator.peer.request("attempt.evidence", { ...task.ids, evidence: {} })
    expect(fromClient.error.code).toBe("unauthorized")
    const invalid = await executing.peer.request("attempt.evidence", { run_id: task.ids.run_id, evidence: {} })
    expect(invalid.error.code).toBe("invalid_request")
    expect(invalid.error.message).toMatch(/step_id/)

    expect((await task.finish()).status).toBe(200)
    for (const p of [operator.peer, executing.peer, other.peer]) p.ws.close()
  })

  it("refuses evidence above 256 KiB characters with invalid_request and {max_chars, actual_chars}", async () => {
    const node = await connectNode(gw, { advertised: [CLI], allowlist: [CLI], ready: ["cli.exec"] })
    const task = await holdTask(node)
    const res = await node.peer.request("attempt.evidence", { ...task.ids, evidence: "x".repeat(MAX_EVIDENCE_CHARS) })
    expect(res.error).toEqual({
      code: "invalid_request",
      message: `evidence: at most ${MAX_EVIDENCE_CHARS} characters of JSON, got ${MAX_EVIDENCE_CHARS + 2}`,
      details: { max_chars: MAX_EVIDENCE_CHARS, actual_chars: MAX_EVIDENCE_CHARS + 2 }
    })
    expect(await node.peer.request("attempt.evidence", { ...task.ids, evidence: "x".repeat(MAX_EVIDENCE_CHARS - 2) })).toMatchObject({ ok: true })
    expect((await task.finish()).status).toBe(200)
    node.peer.ws.close()
  })

  it("a node connected with its scoped node token may declare capabilities ready and send evidence", async () => {
    const identity = makeIdentity()
    const bootstrap = await connectNode(gw, { identity, advertised: [CLI], allowlist: [CLI] })
    expect(bootstrap.scopedToken).toBeTypeOf("string")
    bootstrap.peer.ws.close()
    await bootstrap.peer.closed
    const { peer } = await connectPeer(gw.url, bootstrap.scopedToken!, { role: "node", identity, capabilities: [CLI] })
    expect(await peer.request("capability.ready", { capabilities: [{ id: "cli.exec" }] })).toMatchObject({ ok: true })
    const node: TestNode = { ...bootstrap, peer }
    await eventually(async () => {
      const listed = (await readJson(await gw.fetch("/nodes", bearer(gw.adminToken)))).nodes.find((n: any) => n.node_id === node.nodeId)
      return listed?.connections === 1 && listed.ready_capabilities.length === 1
    }, "the scoped-token connection to be the node's only one, ready")
    const task = await holdTask(node)
    expect(await peer.request("attempt.evidence", { ...task.ids, evidence: "scoped" })).toMatchObject({ ok: true })
    expect((await task.finish()).status).toBe(200)
    peer.ws.close()
  })
})

describe("attempt.evidence attachments (issue 24 §4)", () => {
  let gwa: TestGateway
  beforeAll(async () => {
    const home = mkdtempSync(join(tmpdir(), "svc-node-attachments-"))
    // A 12-byte cap on what is labelled `capped`, and 1 MiB for any one artifact.
    writeFileSync(join(home, "policy.yml"), "v: 1\nartifacts:\n  max_bytes: 1048576\n  quota:\n    by_label:\n      capped: 12\n")
    gwa = await startGateway({ rateLimitMax: 10_000, home, wsMaxMessageBytes: 16 * 1024 * 1024 })
  })
  afterAll(() => gwa.close())

  /** A dispatch to `node` held until `finish` (as `holdTask`, on this gateway). */
  const hold = async (node: TestNode) => {
    let release: (() => void) | undefined
    const tasks = serveTasks(node.peer, (m) => {
      release = () => node.peer.send({ request_id: m.request_id, type: m.type, ok: true, result: { result: "done" } })
      return undefined
    })
    const response = postJson(gwa, `/nodes/${node.nodeId}/dispatch`, { capability: "cli.exec", action: {} }, gwa.adminToken)
    await eventually(() => tasks.length === 1, "the task to reach the node")
    const { run_id, step_id, attempt_id } = tasks[0].payload
    return {
      ids: { run_id, step_id, attempt_id } as { run_id: string; step_id: string; attempt_id: string },
      finish: async () => {
        release!()
        return response
      }
    }
  }
  const b64 = (text: string) => Buffer.from(text).toString("base64")

  it("stores each attachment as an artifact of the attempt: artifact.attached, refs in the broadcast evidence and the dispatch answer", async () => {
    const operator = await connectPeer(gwa.url, gwa.adminToken)
    const node = await connectNode(gwa, { advertised: [CLI], allowlist: [CLI], ready: ["cli.exec"] })
    const task = await hold(node)
    const attached = operator.peer.next((m) => m.type === "artifact.attached")
    const broadcast = operator.peer.next((m) => m.type === "attempt.evidence" && m.payload.attempt_id === task.ids.attempt_id)
    const res = await node.peer.request("attempt.evidence", {
      ...task.ids,
      evidence: {
        step: "screenshot",
        attachments: [
          { kind: "screenshot", mime_type: "image/png", labels: ["desktop"], bytes_base64: b64("PNG bytes"), metadata: { width: 2 } },
          { kind: "log", bytes_base64: "" }
        ]
      }
    })
    expect(res).toMatchObject({ ok: true })
    const event = await attached
    expect(event.payload).toMatchObject({
      artifact: { kind: "screenshot", mime_type: "image/png", labels: ["desktop"], size_bytes: 9, metadata: { width: 2 } },
      ...task.ids
    })
    expect(event.scope).toEqual({ kind: "run", run_id: task.ids.run_id })
    const evidence = (await broadcast).payload.evidence
    expect(evidence.step).toBe("screenshot")
    expect(evidence.attachments.map((a: any) => a.kind)).toEqual(["screenshot", "log"])
    expect(JSON.stringify(evidence)).not.toContain(b64("PNG bytes"))

    const answer = await readJson(await task.finish())
    expect(answer.artifacts).toEqual(evidence.attachments)
    const listed = await gwa.run(Effect.flatMap(Artifacts, (a) => a.listForAttempt(task.ids.attempt_id)))
    expect(listed).toEqual(evidence.attachments)
    const stored = await gwa.run(Effect.flatMap(Artifacts, (a) => a.read(evidence.attachments[0].artifact_id)))
    expect(new TextDecoder().decode(stored!.bytes)).toBe("PNG bytes")
    expect((await gwa.run(Effect.flatMap(Artifacts, (a) => a.get(evidence.attachments[0].artifact_id))))?.link).toMatchObject(task.ids)
    for (const p of [operator.peer, node.peer]) p.ws.close()
  })

  it("refuses invalid attachments (bad base64, over 5 MiB decoded, unknown kind) with invalid_request, over quota with quota_exceeded", async () => {
    const node = await connectNode(gwa, { advertised: [CLI], allowlist: [CLI], ready: ["cli.exec"] })
    const task = await hold(node)
    const send = (attachments: unknown) => node.peer.request("attempt.evidence", { ...task.ids, evidence: { attachments } })

    const badBase64 = await send([{ kind: "log", bytes_base64: "not base64!" }])
    expect(badBase64.error).toEqual({ code: "invalid_request", message: "evidence.attachments[0].bytes_base64: expected standard base64 (padded)" })
    const unpadded = await send([{ kind: "log", bytes_base64: "YWJj" }, { kind: "log", bytes_base64: "YQ" }])
    expect(unpadded.error.message).toBe("evidence.attachments[1].bytes_base64: expected standard base64 (padded)")
    const huge = await send([{ kind: "file", bytes_base64: Buffer.alloc(MAX_ATTACHMENT_BYTES + 3).toString("base64") }])
    expect(huge.error).toEqual({
      code: "invalid_request",
      message: `evidence.attachments[0]: at most ${MAX_ATTACHMENT_BYTES} bytes decoded, got ${MAX_ATTACHMENT_BYTES + 3}`
    })
    const unknownKind = await send([{ kind: "video", bytes_base64: "" }])
    expect(unknownKind.error.code).toBe("invalid_request")
    expect(unknownKind.error.message).toMatch(/evidence\.attachments/)
    expect((await send("not a list")).error.code).toBe("invalid_request")

    // max_bytes (1 MiB) for one artifact, then the `capped` label's 12 bytes in total.
    const tooBig = await send([{ kind: "file", bytes_base64: Buffer.alloc(1048577).toString("base64") }])
    expect(tooBig.error).toMatchObject({ code: "quota_exceeded", message: "artifact of 1048577 bytes is larger than artifacts.max_bytes (1048576)" })
    expect(await send([{ kind: "log", labels: ["capped"], bytes_base64: b64("0123456789") }])).toMatchObject({ ok: true })
    const over = await send([{ kind: "log", labels: ["capped"], bytes_base64: b64("abc") }])
    expect(over.error).toMatchObject({
      code: "quota_exceeded",
      message: "artifact quota exceeded: quota.by_label.capped allows 12 bytes, 10 are stored, this artifact has 3"
    })
    // Other labels are not counted against it.
    expect(await send([{ kind: "log", labels: ["other"], bytes_base64: b64("abc") }])).toMatchObject({ ok: true })

    const answer = await readJson(await task.finish())
    expect(answer.artifacts.map((a: any) => a.labels)).toEqual([["capped"], ["other"]])
    node.peer.ws.close()
  })
})
