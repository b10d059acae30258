/**
 * The nodes services with fakes (an in-memory `Pairings`, recording
 * connections, the TestClock): eligibility and its refusals, the version
 * rule, least busy first, the `task.execute` exchange and each of its
 * failures, `attempt.evidence` (only from the executing node, size limit,
 * grace), `capability.ready` and the node listing.
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Exit, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { adminPrincipal, type Principal } from "../../../services/auth/principal.ts"
import { Capabilities } from "../../../services/nodes/Capabilities.ts"
import { eligibility } from "../../../services/nodes/eligibility.ts"
import { NodeDispatch } from "../../../services/nodes/NodeDispatch.ts"
import { Nodes } from "../../../services/nodes/Nodes.ts"
import { BackplanePeers } from "../../../services/backplane/peers.ts"
import { MAX_EVIDENCE_CHARS } from "../../../services/nodes/schema.ts"
import type { Pairing } from "../../../services/pairing/schema.ts"
import { errorInfo } from "../../../services/shared/errors.ts"
import { ConnectionRegistry } from "../../../services/ws-sessions/ConnectionRegistry.ts"
import { GatewayRequests } from "../../../services/ws-sessions/GatewayRequests.ts"
import { toWsError } from "../../../src/ws/dispatch.ts"
import { fakeConnection, nodesLayer, pairing, type PairingStore, until } from "./support.ts"

const CLI = { id: "cli.exec", version: "1.0.0" }
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

const reader = (id: string): Principal => ({ kind: "device", tokenId: `t-${id}`, deviceId: id, role: "client", scopes: new Set(["operator.read"]) })
const writer = (id: string): Principal => ({ kind: "device", tokenId: `t-${id}`, deviceId: id, role: "client", scopes: new Set(["operator.write"]) })

/** Runs `body` on the nodes services with `pairings` in the fake store. */
const withNodes = <A, E>(pairings: ReadonlyArray<Pairing>, body: (store: PairingStore) => Effect.Effect<A, E, any>) => {
  const store: PairingStore = new Map(pairings.map((p) => [p.node.node_id, p]))
  return body(store).pipe(Effect.provide(nodesLayer(store))) as Effect.Effect<A, E>
}

/** A connected node (`dev_<id>`, cli.exec advertised and ready unless told) that answers each task with `answer` (none: never answers). */
const connectNode = (
  id: string,
  options: { readonly answer?: (request: any) => Record<string, unknown>; readonly advertised?: ReadonlyArray<{ id: string; version?: string }>; readonly ready?: ReadonlyArray<string> } = {}
) =>
  Effect.gen(function*() {
    const registry = yield* ConnectionRegistry
    const requests = yield* GatewayRequests
    const node = fakeConnection({
      id,
      advertised: options.advertised ?? [CLI],
      ready: options.ready ?? ["cli.exec"],
      onRequest: (m) => {
        if (options.answer === undefined) return
        requests.resolve(id, { request_id: m.request_id, type: m.type, ...options.answer(m) } as any)
      }
    })
    yield* registry.add(node.handle)
    return node
  })

const approved = (id: string, allowlist: ReadonlyArray<{ id: string; version?: string }> = [CLI]) => pairing(Number(id.replace(/\D/g, "") || 1), `dev_${id}`, "approved", allowlist)

describe("eligibility (pure)", () => {
  const connection = (advertised: ReadonlyArray<{ id: string; version?: string }>, ready: ReadonlyArray<string>, role: "node" | "client" = "node") =>
    fakeConnection({ id: "n", role, advertised, ready }).handle

  it("checks role, pairing, approval, allowlist and readiness, in that order", () => {
    const ok = connection([CLI], ["cli.exec"])
    expect(eligibility(ok, pairing(1, "dev_n", "approved", [CLI]), "cli.exec")).toEqual({ eligible: true })
    expect(eligibility(connection([CLI], ["cli.exec"], "client"), pairing(1, "dev_n", "approved", [CLI]), "cli.exec"))
      .toEqual({ eligible: false, reason: "not a node" })
    expect(eligibility(ok, undefined, "cli.exec")).toEqual({ eligible: false, reason: "not paired" })
    for (const status of ["pending", "denied", "revoked"] as const) {
      expect(eligibility(ok, pairing(1, "dev_n", status, [CLI]), "cli.exec"))
        .toEqual({ eligible: false, reason: `pairing is ${status}, not approved` })
    }
    expect(eligibility(ok, pairing(1, "dev_n", "approved", [{ id: "desktop.screenshot" }]), "cli.exec"))
      .toEqual({ eligible: false, reason: "cli.exec is not in its capability allowlist" })
    expect(eligibility(connection([CLI], []), pairing(1, "dev_n", "approved", [CLI]), "cli.exec"))
      .toEqual({ eligible: false, reason: "cli.exec is not ready" })
  })

  it("version rule: an allowlisted version must equal the advertised one (absent = 1.0.0); no version admits any", () => {
    const v2 = connection([{ id: "cli.exec", version: "2.0.0" }], ["cli.exec"])
    const unversioned = connection([{ id: "cli.exec" }], ["cli.exec"])
    expect(eligibility(v2, pairing(1, "dev_n", "approved", [CLI]), "cli.exec"))
      .toEqual({ eligible: false, reason: "cli.exec 2.0.0 is not an allowlisted version (1.0.0)" })
    expect(eligibility(v2, pairing(1, "dev_n", "approved", [CLI, { id: "cli.exec", version: "2.0.0" }]), "cli.exec")).toEqual({ eligible: true })
    expect(eligibility(v2, pairing(1, "dev_n", "approved", [{ id: "cli.exec" }]), "cli.exec")).toEqual({ eligible: true })
    expect(eligibility(unversioned, pairing(1, "dev_n", "approved", [CLI]), "cli.exec")).toEqual({ eligible: true })
    expect(eligibility(unversioned, pairing(1, "dev_n", "approved", [{ id: "cli.exec", version: "1.2.0" }]), "cli.exec").eligible).toBe(false)
  })
})

describe("NodeDispatch: choosing a node", () => {
  it.effect("refuses with no_eligible_node (409) saying why each connected node was passed over", () =>
    withNodes([
      pairing(2, "dev_b", "pending", [CLI]),
      approved("c", [{ id: "desktop.screenshot" }]),
      approved("d")
    ], (store) =>
      Effect.gen(function*() {
        const dispatch = yield* NodeDispatch
        const registry = yield* ConnectionRegistry
        const none = yield* Effect.flip(dispatch.dispatch({ capability: "cli.exec", action: {} }))
        expect(none.message).toBe("no eligible node for cli.exec: no node is connected")

        yield* connectNode("b")
        yield* connectNode("c")
        yield* connectNode("d", { ready: [] })
        yield* connectNode("e")
        yield* registry.add(fakeConnection({ id: "operator", role: "client" }).handle)
        const error = yield* Effect.flip(dispatch.dispatch({ capability: "cli.exec", action: {} }))
        expect(error._tag).toBe("NoEligibleNode")
        expect(errorInfo(error)).toEqual({ status: 409, code: "no_eligible_node" })
        const refusals = [
          { node_id: "dev_b", reason: "pairing is pending, not approved" },
          { node_id: "dev_c", reason: "cli.exec is not in its capability allowlist" },
          { node_id: "dev_d", reason: "cli.exec is not ready" },
          { node_id: "dev_e", reason: "not paired" }
        ]
        expect(error.details).toEqual({ capability: "cli.exec", refusals })
        expect(error.message).toContain("dev_d cli.exec is not ready")
        expect(toWsError(error)).toEqual({ code: "no_eligible_node", message: error.message, details: { capability: "cli.exec", refusals } })

        store.set("dev_a", approved("a"))
        const a = yield* connectNode("a", { answer: () => ({ ok: true, result: { result: "done" } }) })
        expect(yield* dispatch.dispatch({ capability: "cli.exec", action: {} })).toMatchObject({ node_id: "dev_a", result: "done" })
        expect(a.requests()).toHaveLength(1)
      })))

  it.effect("with node_id, uses that node only, and says why it cannot", () =>
    withNodes([approved("a"), approved("d")], () =>
      Effect.gen(function*() {
        const dispatch = yield* NodeDispatch
        yield* connectNode("a", { answer: () => ({ ok: true }) })
        yield* connectNode("d", { ready: [] })
        const absent = yield* Effect.flip(dispatch.dispatch({ node_id: "dev_x", capability: "cli.exec", action: {} }))
        expect(absent.message).toBe("node dev_x is not connected")
        expect(absent._tag === "NoEligibleNode" && absent.details).toEqual({ capability: "cli.exec", node_id: "dev_x", refusals: [] })
        const notReady = yield* Effect.flip(dispatch.dispatch({ node_id: "dev_d", capability: "cli.exec", action: {} }))
        expect(notReady.message).toBe("node dev_d cannot run cli.exec: cli.exec is not ready")
        const notAllowed = yield* Effect.flip(dispatch.dispatch({ node_id: "dev_a", capability: "desktop.screenshot", action: {} }))
        expect(notAllowed.message).toBe("node dev_a cannot run desktop.screenshot: desktop.screenshot is not in its capability allowlist")
        expect(yield* dispatch.dispatch({ node_id: "dev_a", capability: "cli.exec", action: {} })).toMatchObject({ node_id: "dev_a" })
      })))

  it.effect("picks the least busy eligible connection; ties go to the earliest connection", () =>
    withNodes([approved("a"), approved("b")], () =>
      Effect.gen(function*() {
        const dispatch = yield* NodeDispatch
        const requests = yield* GatewayRequests
        const a = yield* connectNode("a")
        const b = yield* connectNode("b")
        const run = () => Effect.forkChild(dispatch.dispatch({ capability: "cli.exec", action: {} }))
        const first = yield* run()
        yield* until(() => a.requests().length === 1, "the first task on a")
        const second = yield* run()
        yield* until(() => b.requests().length === 1, "the second task on b")
        const third = yield* run()
        yield* until(() => a.requests().length === 2, "the third task on a")
        expect([dispatch.inFlight("a"), dispatch.inFlight("b")]).toEqual([2, 1])
        // a finishes both: b is now the busier one.
        for (const m of a.requests()) requests.resolve("a", { request_id: m.request_id, type: m.type, ok: true })
        expect((yield* Fiber.join(first)).node_id).toBe("dev_a")
        expect((yield* Fiber.join(third)).node_id).toBe("dev_a")
        const fourth = yield* run()
        yield* until(() => a.requests().length === 3, "the fourth task on a")
        requests.resolve("b", { request_id: b.requests()[0].request_id, type: "task.execute", ok: true })
        requests.resolve("a", { request_id: a.requests()[2].request_id, type: "task.execute", ok: true })
        expect((yield* Fiber.join(second)).node_id).toBe("dev_b")
        expect((yield* Fiber.join(fourth)).node_id).toBe("dev_a")
        expect([dispatch.inFlight("a"), dispatch.inFlight("b")]).toEqual([0, 0])
      })))
})

describe("NodeDispatch: the task.execute exchange", () => {
  it.effect("sends task.execute (request_id task-<uuid>, generated ids) and returns the node's result and evidence", () =>
    withNodes([approved("a")], () =>
      Effect.gen(function*() {
        const dispatch = yield* NodeDispatch
        const a = yield* connectNode("a", { answer: (m) => ({ ok: true, result: { result: { echoed: m.payload.action }, evidence: { log: "ran" } } }) })
        const response = yield* dispatch.dispatch({ capability: "cli.exec", action: { type: "CLI", args: { cmd: "ls" } } })
        const [sent] = a.requests()
        expect(sent.request_id).toMatch(/^task-[0-9a-f-]{36}$/)
        expect(sent.payload).toEqual({
          run_id: expect.stringMatching(/^dispatch-[0-9a-f-]{36}$/),
          step_id: "0",
          attempt_id: expect.stringMatching(UUID),
          action: { type: "CLI", args: { cmd: "ls" } }
        })
        expect(response).toEqual({
          node_id: "dev_a",
          run_id: sent.payload.run_id,
          step_id: "0",
          attempt_id: sent.payload.attempt_id,
          result: { echoed: { type: "CLI", args: { cmd: "ls" } } },
          evidence: { log: "ran" }
        })
      })))

  it.effect("passes given ids through, and returns result and evidence as the node answered them", () =>
    withNodes([approved("a")], () =>
      Effect.gen(function*() {
        const dispatch = yield* NodeDispatch
        yield* connectNode("a", { answer: (m) => ({ ok: true, result: m.payload.action.answer }) })
        const ids = { run_id: "run-1", step_id: "3", attempt_id: "att-1" }
        expect(yield* dispatch.dispatch({ ...ids, capability: "cli.exec", action: { answer: { result: 7, evidence: { shot: "png" } } } }))
          .toEqual({ node_id: "dev_a", ...ids, result: 7, evidence: { shot: "png" } })
        expect(yield* dispatch.dispatch({ ...ids, capability: "cli.exec", action: { answer: {} } })).toEqual({ node_id: "dev_a", ...ids })
        expect(yield* dispatch.dispatch({ ...ids, capability: "cli.exec", action: {} })).toEqual({ node_id: "dev_a", ...ids })
      })))

  it.effect("an error answer is node_task_failed (502) carrying the node's error and details.evidence", () =>
    withNodes([approved("a")], () =>
      Effect.gen(function*() {
        const dispatch = yield* NodeDispatch
        yield* connectNode("a", {
          answer: () => ({ ok: false, error: { code: "tool_failed", message: "exit 2", details: { evidence: { stderr: "boom" } } } })
        })
        const error = yield* Effect.flip(dispatch.dispatch({ run_id: "r", step_id: "s", attempt_id: "t", capability: "cli.exec", action: {} }))
        expect(error._tag).toBe("NodeTaskFailed")
        expect(errorInfo(error)).toEqual({ status: 502, code: "node_task_failed" })
        expect(error.message).toBe("node dev_a reported an error: tool_failed: exit 2")
        const details = { node_id: "dev_a", run_id: "r", step_id: "s", attempt_id: "t", node_error: { code: "tool_failed", message: "exit 2" }, evidence: { stderr: "boom" } }
        expect(error.details).toEqual(details)
        expect(toWsError(error)).toEqual({ code: "node_task_failed", message: error.message, details })
        expect(dispatch.inFlight("a")).toBe(0)
      })))

  it.effect("an answer that is not {result?, evidence?} is node_task_failed (invalid_result)", () =>
    withNodes([approved("a")], () =>
      Effect.gen(function*() {
        const dispatch = yield* NodeDispatch
        yield* connectNode("a", { answer: () => ({ ok: true, result: 42 }) })
        const error = yield* Effect.flip(dispatch.dispatch({ capability: "cli.exec", action: {} }))
        expect(error._tag).toBe("NodeTaskFailed")
        expect(error._tag === "NodeTaskFailed" && error.details.node_error.code).toBe("invalid_result")
      })))

  it.effect("no answer within the timeout is node_timeout (504), on the clock", () =>
    withNodes([approved("a")], () =>
      Effect.gen(function*() {
        const dispatch = yield* NodeDispatch
        const a = yield* connectNode("a")
        const fiber = yield* Effect.forkChild(dispatch.dispatch({ capability: "cli.exec", action: {}, timeout: Duration.seconds(10) }))
        yield* until(() => a.requests().length === 1, "the task")
        yield* TestClock.adjust(Duration.millis(9_999))
        expect(fiber.pollUnsafe()).toBeUndefined()
        yield* TestClock.adjust(Duration.millis(1))
        const exit = yield* Fiber.await(fiber)
        expect(Exit.isFailure(exit)).toBe(true)
        const error = yield* Effect.flip(Fiber.join(fiber))
        expect(error._tag).toBe("NodeTaskTimeout")
        expect(errorInfo(error)).toEqual({ status: 504, code: "node_timeout" })
        expect(error._tag === "NodeTaskTimeout" && error.details).toMatchObject({ node_id: "dev_a", timeout_ms: 10_000 })
        expect(dispatch.inFlight("a")).toBe(0)

        // The default timeout is 30 s.
        const defaulted = yield* Effect.forkChild(dispatch.dispatch({ capability: "cli.exec", action: {} }))
        yield* until(() => a.requests().length === 2, "the second task")
        yield* TestClock.adjust(Duration.millis(29_999))
        expect(defaulted.pollUnsafe()).toBeUndefined()
        yield* TestClock.adjust(Duration.millis(1))
        expect((yield* Effect.flip(Fiber.join(defaulted)))._tag).toBe("NodeTaskTimeout")
      })))

  it.effect("the node disconnecting mid-task is node_disconnected (502)", () =>
    withNodes([approved("a")], () =>
      Effect.gen(function*() {
        const dispatch = yield* NodeDispatch
        const registry = yield* ConnectionRegistry
        const a = yield* connectNode("a")
        const fiber = yield* Effect.forkChild(dispatch.dispatch({ capability: "cli.exec", action: {} }))
        yield* until(() => a.requests().length === 1, "the task")
        yield* registry.remove("a")
        const error = yield* Effect.flip(Fiber.join(fiber))
        expect(error._tag).toBe("NodeDisconnected")
        expect(errorInfo(error)).toEqual({ status: 502, code: "node_disconnected" })
        expect(error.message).toBe("node dev_a disconnected before it answered")
        expect(dispatch.inFlight("a")).toBe(0)
      })))
})

describe("NodeDispatch: attempt.evidence", () => {
  const ids = { run_id: "run-9", step_id: "2", attempt_id: "att-9" }

  it.effect("accepts evidence from the executing node only, and broadcasts it to operators with a run scope", () =>
    withNodes([approved("a"), approved("b")], () =>
      Effect.gen(function*() {
        const dispatch = yield* NodeDispatch
        const registry = yield* ConnectionRegistry
        const requests = yield* GatewayRequests
        const admin = fakeConnection({ id: "admin", role: "client", principal: adminPrincipal })
        const operator = fakeConnection({ id: "op", role: "client", principal: reader("op") })
        const other = fakeConnection({ id: "w", role: "client", principal: writer("w") })
        for (const c of [admin, operator, other]) yield* registry.add(c.handle)
        const a = yield* connectNode("a")
        const b = yield* connectNode("b")
        const fiber = yield* Effect.forkChild(dispatch.dispatch({ ...ids, node_id: "dev_a", capability: "cli.exec", action: {} }))
        yield* until(() => a.requests().length === 1, "the task")

        yield* dispatch.evidence(a.handle, { ...ids, evidence: { step: "screenshot" } })
        const expected = { type: "attempt.evidence", payload: { node_id: "dev_a", ...ids, evidence: { step: "screenshot" } }, scope: { kind: "run", run_id: "run-9" } }
        expect(operator.events("attempt.evidence")).toEqual([expect.objectContaining(expected)])
        expect(admin.events("attempt.evidence")).toHaveLength(1)
        expect(other.events("attempt.evidence")).toEqual([])
        expect(a.events("attempt.evidence")).toEqual([])

        const forbidden = yield* Effect.flip(dispatch.evidence(b.handle, { ...ids, evidence: 1 }))
        expect(forbidden._tag).toBe("Forbidden")
        expect(forbidden.message).toBe("attempt att-9 is executed by another node")
        const unknown = yield* Effect.flip(dispatch.evidence(a.handle, { ...ids, attempt_id: "nope", evidence: 1 }))
        expect(unknown._tag).toBe("NotFound")
        const wrongStep = yield* Effect.flip(dispatch.evidence(a.handle, { ...ids, step_id: "3", evidence: 1 }))
        expect(wrongStep._tag).toBe("NotFound")
        expect(operator.events("attempt.evidence")).toHaveLength(1)

        requests.resolve("a", { request_id: a.requests()[0].request_id, type: "task.execute", ok: true })
        yield* Fiber.join(fiber)
      })))

  it.effect("refuses evidence above 256 KiB characters with invalid_request and {max_chars, actual_chars}", () =>
    withNodes([approved("a")], () =>
      Effect.gen(function*() {
        const dispatch = yield* NodeDispatch
        const a = yield* connectNode("a")
        yield* Effect.forkChild(dispatch.dispatch({ ...ids, capability: "cli.exec", action: {} }))
        yield* until(() => a.requests().length === 1, "the task")
        const fits = "x".repeat(MAX_EVIDENCE_CHARS - 2) // with its quotes: exactly the limit
        yield* dispatch.evidence(a.handle, { ...ids, evidence: fits })
        const error = yield* Effect.flip(dispatch.evidence(a.handle, { ...ids, evidence: fits + "x" }))
        expect(error._tag).toBe("EvidenceTooLarge")
        expect(toWsError(error)).toEqual({
          code: "invalid_request",
          message: `evidence: at most ${MAX_EVIDENCE_CHARS} characters of JSON, got ${MAX_EVIDENCE_CHARS + 1}`,
          details: { max_chars: MAX_EVIDENCE_CHARS, actual_chars: MAX_EVIDENCE_CHARS + 1 }
        })
      })))

  it.effect("accepts evidence for 5 s after the task ended, then not_found", () =>
    withNodes([approved("a")], () =>
      Effect.gen(function*() {
        const dispatch = yield* NodeDispatch
        yield* connectNode("a", { answer: () => ({ ok: true }) })
        yield* dispatch.dispatch({ ...ids, capability: "cli.exec", action: {} })
        yield* TestClock.adjust(Duration.seconds(5))
        yield* dispatch.evidence(fakeConnection({ id: "a" }).handle, { ...ids, evidence: "late but in time" })
        yield* TestClock.adjust(Duration.millis(1))
        const error = yield* Effect.flip(dispatch.evidence(fakeConnection({ id: "a" }).handle, { ...ids, evidence: "too late" }))
        expect(error._tag).toBe("NotFound")
        expect(errorInfo(error)?.code).toBe("not_found")
      })))

  it.effect("refuses evidence once the node's pairing is no longer approved", () =>
    withNodes([approved("a")], (store) =>
      Effect.gen(function*() {
        const dispatch = yield* NodeDispatch
        const a = yield* connectNode("a")
        yield* Effect.forkChild(dispatch.dispatch({ ...ids, capability: "cli.exec", action: {} }))
        yield* until(() => a.requests().length === 1, "the task")
        store.set("dev_a", { ...store.get("dev_a")!, status: "revoked" })
        const error = yield* Effect.flip(dispatch.evidence(a.handle, { ...ids, evidence: 1 }))
        expect(error._tag).toBe("Forbidden")
      })))

  it.effect("a task id that is already executing is a defect", () =>
    withNodes([approved("a")], () =>
      Effect.gen(function*() {
        const dispatch = yield* NodeDispatch
        const a = yield* connectNode("a")
        yield* Effect.forkChild(dispatch.dispatch({ ...ids, capability: "cli.exec", action: {} }))
        yield* until(() => a.requests().length === 1, "the task")
        const exit = yield* Effect.exit(dispatch.dispatch({ ...ids, capability: "cli.exec", action: {} }))
        expect(Exit.hasDies(exit)).toBe(true)
        expect(dispatch.inFlight("a")).toBe(1)
      })))
})

describe("Capabilities and Nodes", () => {
  it.effect("capability.ready: the ready set becomes advertised ∩ declared, announced with a node scope", () =>
    withNodes([], () =>
      Effect.gen(function*() {
        const registry = yield* ConnectionRegistry
        const capabilities = yield* Capabilities
        const operator = fakeConnection({ id: "op", role: "client", principal: reader("op") })
        yield* registry.add(operator.handle)
        const node = fakeConnection({ id: "n", advertised: [CLI, { id: "desktop.screenshot" }], ready: ["desktop.screenshot"] })
        yield* registry.add(node.handle)
        const ready = yield* capabilities.declareReady(node.handle, [{ id: "cli.exec" }, { id: "not.advertised" }])
        expect(ready).toEqual([CLI])
        expect([...node.handle.readyCapabilities]).toEqual(["cli.exec"])
        expect(operator.events("capability.ready")).toEqual([expect.objectContaining({
          payload: { node_id: "dev_n", connection_id: "n", capabilities: [CLI] },
          scope: { kind: "node", node_id: "dev_n" }
        })])
      })))

  it.effect("lists every node with a pairing record, with its live connections, tasks in flight and ready capabilities", () =>
    withNodes([approved("a"), pairing(5, "dev_p", "pending")], () =>
      Effect.gen(function*() {
        const nodes = yield* Nodes
        const dispatch = yield* NodeDispatch
        const registry = yield* ConnectionRegistry
        const first = yield* connectNode("a")
        yield* registry.add(fakeConnection({ id: "a2", deviceId: "dev_a", advertised: [CLI, { id: "desktop.screenshot" }], ready: ["cli.exec", "desktop.screenshot"] }).handle)
        yield* connectNode("stranger")
        yield* Effect.forkChild(dispatch.dispatch({ node_id: "dev_a", capability: "cli.exec", action: {} }))
        yield* until(() => first.requests().length === 1, "the task")
        const { instanceId } = yield* BackplanePeers
        expect(yield* nodes.list()).toEqual({
          status: "ok",
          nodes: [
            {
              node_id: "dev_p",
              label: "label-dev_p",
              pairing_id: 5,
              pairing_status: "pending",
              trust_level: null,
              connected: false,
              connections: 0,
              instance_ids: [],
              in_flight: 0,
              ready_capabilities: [],
              capability_allowlist: [],
              last_seen_at: "1970-01-01T00:00:00.000Z"
            },
            {
              node_id: "dev_a",
              label: "label-dev_a",
              pairing_id: 1,
              pairing_status: "approved",
              trust_level: "local",
              connected: true,
              connections: 2,
              instance_ids: [instanceId],
              in_flight: 1,
              ready_capabilities: [CLI, { id: "desktop.screenshot" }],
              capability_allowlist: [CLI],
              last_seen_at: "1970-01-01T00:00:00.000Z"
            }
          ]
        })
      })))
})
