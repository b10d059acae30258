/**
 * Fills every table of the snapshot set through the gateway's own features
 * (HTTP, WebSocket, the secret resolver), for the snapshot round trips:
 * device tokens, pairings (pending and approved), secrets (handles, versions,
 * resolutions), auth profiles and pins, policy overrides, routing revisions,
 * plans (with their events and approvals) and workflow runs that succeeded,
 * are paused (approval and resume token) and are queued behind the paused
 * one, memory items (one kept, one deleted with its tombstone), the work board, one agent turn (its tool
 * call waiting on an approval), a session's `/queue` setting, a subagent with an answered message, and a messenger
 * update (its inbox item, delivery receipts and approval prompt). The gateway needs `engineApiEnabled`,
 * `agentEnabled` with `builtin/scripted`, {@link messengerSettings} and a policy allowing Http steps to `target`.
 */
import { Clock, Effect, Redacted } from "effect"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { SecretResolver } from "../../services/secrets/SecretStore.ts"
import { signWebhook } from "../../services/watchers/webhook/signature.ts"
import { eventually } from "./eventually.ts"
import { readJson, type TestGateway } from "./gateway.ts"
import { connectPeer, makeIdentity } from "./wsPeer.ts"

/** The workflow key of the populated runs. */
export const RUN_KEY = "agent:default:main"

/** A `$SVC_HOME` policy letting Http steps reach 127.0.0.1 (any port). */
export const HTTP_POLICY = `v: 1
tools:
  allow: [tool.http.fetch]
  require_approval: [tool.memory.search]
network_egress:
  allow: ["http://127.0.0.1:*"]
`

/** The messenger webhook secret of {@link messengerSettings}. */
const MESSENGER_SECRET = "snapshot-webhook-secret"

/** Messenger settings whose Bot API is `target` (it answers every call `{ok: true}`). */
export const messengerSettings = (target: string) => ({
  messengerBotToken: Redacted.make("4711:snapshot-bot-token"),
  messengerWebhookSecret: Redacted.make(MESSENGER_SECRET),
  messengerApiUrl: target.replace(/\/+$/, "")
})

/** What {@link populate} created, to look it up again after an import. */
export interface Populated {
  readonly secret: { readonly handle_id: string; readonly value: string }
  readonly approvalIds: ReadonlyArray<number>
  readonly pairingIds: ReadonlyArray<number>
  readonly runs: { readonly succeeded: string; readonly paused: string; readonly queued: string }
}

const call = async (gw: TestGateway, method: string, path: string, body?: unknown) => {
  const res = body === undefined && method === "GET"
    ? await gw.fetch(path, { headers: { authorization: `Bearer ${gw.adminToken}` } })
    : await gw.fetch(path, {
      method,
      headers: { authorization: `Bearer ${gw.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify(body ?? {})
    })
  const json = await readJson(res)
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`)
  return json
}

/** Fills every table; `target` is an HTTP URL the Http steps may call. */
export const populate = async (gw: TestGateway, target: string): Promise<Populated> => {
  const post = (path: string, body: unknown) => call(gw, "POST", path, body)
  const get = (path: string) => call(gw, "GET", path)

  await post("/auth/device-tokens/issue", { device_id: "dev-snapshot", role: "client", scopes: ["operator.read"] })

  const operator = (await connectPeer(gw.url, gw.adminToken)).peer
  const nodes = []
  for (let i = 0; i < 2; i++) {
    const identity = makeIdentity()
    const { peer } = await connectPeer(gw.url, gw.adminToken, { role: "node", identity, capabilities: [{ id: "cli.exec", version: "1.0.0" }] })
    const requested = await operator.next((m) => m?.type === "pairing.requested" && m.payload.pairing.node.node_id === identity.deviceId)
    nodes.push({ peer, pairing_id: requested.payload.pairing.pairing_id as number })
  }
  await post(`/pairings/${nodes[0]!.pairing_id}/approve`, { trust_level: "local", capability_allowlist: [{ id: "cli.exec", version: "1.0.0" }] })
  for (const node of nodes) node.peer.ws.close()

  const value = "snapshot-secret-value-42"
  const { handle } = await post("/secrets", { scope: "snapshot", value })
  await gw.run(Effect.flatMap(SecretResolver, (r) => r.resolve(handle.handle_id, "snapshot-test")).pipe(Effect.map(Redacted.value)))
  const { profile } = await post("/auth/profiles", { provider: "openai", type: "api_key", secret_handles: { api_key: handle.handle_id }, labels: { team: "ops" } })
  await post("/auth/pins", { agent_id: "default", session_id: "s-1", provider: "openai", profile_id: profile.auth_profile_id })

  // A webhook watcher and one signed delivery: `watchers` and `watcher_firings`.
  const watcher = await post("/watchers", { plan_id: "plan-snapshot-hook", trigger_type: "webhook", trigger_config: { secret_handle: handle.handle_id } })
  const timestamp = String(Math.floor((await gw.run(Clock.currentTimeMillis)) / 1000)).padStart(10, "0")
  const body = JSON.stringify({ event: "snapshot" })
  const delivered = await gw.fetch(`/watchers/${watcher.id}/trigger/webhook`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${gw.adminToken}`,
      "x-svc-webhook-signature": signWebhook(value, timestamp, "snapshot-nonce", body),
      "x-svc-webhook-timestamp": timestamp,
      "x-svc-webhook-nonce": "snapshot-nonce"
    },
    body
  })
  expect_(delivered.status, 200)

  await post("/policy/overrides", { agent_id: "default", tool_id: "tool.http.fetch", pattern: "https://example.com/*" })
  await post("/canvas/publish", { plan_id: "plan-snapshot", title: "Snapshot page", content_type: "text/html", html_content: "<p>kept</p>", metadata: { n: 1 } })
  await call(gw, "PUT", "/routing/config", { config: { v: 1, messenger: { default_agent_id: "default", threads: { "t-1": "helper" } } }, reason: "snapshot test" })

  const trigger = { channel: "telegram", thread_id: "t-1", message: { text: "Order the usual flowers" } }
  const escalated = await post("/plan", { request_id: "snapshot-plan-1", trigger })
  await post("/plan", { request_id: "snapshot-plan-2", trigger, tags: ["spend:4500:eur:Flower_Shop", "pii:basic_contact", "legal:none"] })

  const runStatus = async (run_id: string) => (await get(`/workflow/runs/${run_id}`)).run?.status
  const succeeded = (await post("/workflow/run", { key: RUN_KEY, steps: [{ type: "Http", args: { method: "GET", url: target } }] })).run_id
  await eventually(async () => (await runStatus(succeeded)) === "succeeded", "run succeeded", 30_000)
  const paused = (await post("/workflow/run", { key: RUN_KEY, steps: [{ type: "Confirm" }, { type: "Http", args: { method: "GET", url: target } }] })).run_id
  await eventually(async () => (await runStatus(paused)) === "paused", "run paused", 30_000)
  const queued = (await post("/workflow/run", { key: RUN_KEY, steps: [{ type: "Http", args: { method: "GET", url: target } }] })).run_id
  expect_(await runStatus(queued), "queued")

  // Memory: a kept note and a deleted one (`memory_items`, `memory_tombstones`).
  const remember = async (title: string) => {
    const res = await operator.request("memory.create", { v: 1, item: { kind: "note", title, body_md: `${title} body`, tags: ["snapshot"] } })
    if (res.ok !== true) throw new Error(`memory.create: ${JSON.stringify(res)}`)
    return res.result.item.memory_item_id as string
  }
  await remember("Snapshot kept note")
  expect_((await operator.request("memory.delete", { memory_item_id: await remember("Snapshot deleted note") })).ok, true)

  await populateWork(operator)
  // The agent runtime (model builtin/scripted): one turn whose memory_search waits on an approval
  // (`agent_sessions`, `agent_messages`, `agent_context_reports`, `agent_tool_calls`).
  mkdirSync(join(gw.settings.home, "agents", "default"), { recursive: true })
  writeFileSync(join(gw.settings.home, "agents", "default", "script.yml"),
    "turns:\n  - tool_calls: [{name: memory_search, arguments: {query: snapshot}}]\n    reply: Searched.\n")
  const turn = await operator.request("session.send", { channel: "operator", thread_id: "snapshot", content: "Snapshot turn" })
  if (turn.ok !== true) throw new Error(`session.send: ${JSON.stringify(turn)}`)
  // A slash command that stores a session setting (`agent_session_settings`).
  const command = await operator.request("command.execute", { command: "/queue followup", channel: "operator", thread_id: "snapshot" })
  if (command.ok !== true) throw new Error(`command.execute: ${JSON.stringify(command)}`)
  await populateSubagents(operator)
  await populateMessenger(gw, operator)
  operator.ws.close()

  const approvals = (await get("/approvals")).approvals as ReadonlyArray<{ id: number }>
  const pairings = (await get("/pairings")).pairings as ReadonlyArray<{ pairing_id: number }>
  return {
    secret: { handle_id: handle.handle_id, value },
    approvalIds: [escalated.escalation.approval_id, ...approvals.map((a) => a.id)],
    pairingIds: pairings.map((p) => p.pairing_id),
    runs: { succeeded, paused, queued }
  }
}

/** Fills the work board's tables over WebSocket: two linked items, an artifact, a decision, a signal, a kv entry. */
const populateWork = async (operator: Awaited<ReturnType<typeof connectPeer>>["peer"]) => {
  const scope = { tenant_id: "t1", agent_id: "default", workspace_id: "snapshot" }
  const ok = async (type: string, payload: unknown) => {
    const res = await operator.request(type, payload)
    if (!res.ok) throw new Error(`${type}: ${JSON.stringify(res.error)}`)
    return res.result
  }
  const first = (await ok("work.create", { ...scope, item: { kind: "initiative", title: "Snapshot", acceptance: { done: true } } })).item
  const second = (await ok("work.create", { ...scope, item: { kind: "action", title: "Step", parent_work_item_id: first.work_item_id } })).item
  await ok("work.link.create", { ...scope, work_item_id: second.work_item_id, linked_work_item_id: first.work_item_id, kind: "depends_on" })
  await ok("work.artifact.create", { ...scope, artifact: { work_item_id: second.work_item_id, kind: "risk", title: "Risk", refs: ["r1"] } })
  await ok("work.decision.create", { ...scope, decision: { question: "Go?", chosen: "yes", alternatives: ["no"], rationale_md: "-", input_artifact_ids: [] } })
  await ok("work.signal.create", { ...scope, signal: { trigger_kind: "event", trigger_spec_json: { on: "deploy" } } })
  await ok("work.state_kv.set", { ...scope, scope: { kind: "work_item", work_item_id: second.work_item_id }, key: "k", value_json: { v: 1 } })
}

/** Fills the subagents' tables: a subagent and one answered message (`agent_subagents`, `agent_subagent_messages`). */
const populateSubagents = async (operator: Awaited<ReturnType<typeof connectPeer>>["peer"]) => {
  const scope = { tenant_id: "t1", agent_id: "default", workspace_id: "snapshot" }
  const spawned = await operator.request("subagent.spawn", { ...scope, execution_profile: "snapshot" })
  if (spawned.ok !== true) throw new Error(`subagent.spawn: ${JSON.stringify(spawned)}`)
  const subagentId = spawned.result.subagent.subagent_id as string
  const sent = await operator.request("subagent.send", { ...scope, subagent_id: subagentId, content: "Snapshot subagent turn" })
  if (sent.ok !== true) throw new Error(`subagent.send: ${JSON.stringify(sent)}`)
  await operator.next((m: any) => m?.type === "subagent.output" && m.payload?.subagent_id === subagentId, 30_000)
}

const expect_ = (actual: unknown, expected: unknown) => {
  if (actual !== expected) throw new Error(`expected ${String(expected)}, got ${String(actual)}`)
}

/**
 * Fills the messenger's tables: one update from a chat, whose turn (the default agent's script: a memory_search
 * waiting on an approval) is answered and whose approval is sent to the chat (`messenger_inbox`,
 * `messenger_deliveries`, `messenger_approval_prompts`).
 */
const populateMessenger = async (gw: TestGateway, operator: Awaited<ReturnType<typeof connectPeer>>["peer"]) => {
  const receipts = (kind: string) => operator.next((m: any) => m?.type === "delivery.receipt" && m.payload?.kind === kind, 30_000)
  const reply = receipts("reply")
  const prompt = receipts("approval")
  const res = await gw.fetch("/ingress/messenger", {
    method: "POST",
    headers: { authorization: `Bearer ${gw.adminToken}`, "x-messenger-bot-api-secret-token": MESSENGER_SECRET },
    body: JSON.stringify({ update_id: 1, message: { message_id: 1, date: 1767225600, chat: { id: 5151, type: "private" }, from: { id: 5151 }, text: "Snapshot chat" } })
  })
  expect_(res.status, 200)
  await Promise.all([reply, prompt])
}
