/**
 * Dispatch of tasks to nodes (reference §4 "Dispatch eligibility", §5.3
 * `task.execute`; docs/nodes.md): picks an eligible connected node (least
 * busy first), sends it `task.execute` and awaits its answer, with a
 * timeout. While a task runs (and for {@link EVIDENCE_GRACE} after), its
 * attempt is registered so that the executing node, and only it, may send
 * `attempt.evidence` for it; accepted evidence is broadcast to operators.
 * Candidates come from the {@link Backplane}'s directory and `task.execute`
 * goes through it; the in-flight counts and the attempts are this
 * instance's (docs/architecture.md "Backplane").
 */
import { Clock, Context, Duration, Effect, Layer, Result } from "effect"
import { Pairings } from "../pairing/Pairings.ts"
import type { Pairing } from "../pairing/schema.ts"
import { makeDecoder } from "../shared/decode.ts"
import { Backplane } from "../backplane/Backplane.ts"
import type { PeerRequestError } from "../backplane/errors.ts"
import type { ConnectionEntry } from "../backplane/schema.ts"
import { EventBus } from "../ws-sessions/EventBus.ts"
import { eligibility } from "./eligibility.ts"
import {
  type DispatchError,
  EvidenceTooLarge,
  Forbidden,
  NodeDisconnected,
  NodeTaskFailed,
  NodeTaskTimeout,
  NoEligibleNode,
  NotFound,
  type Refusal
} from "./errors.ts"
import { AttemptEvidenceEvent } from "./events.ts"
import {
  DISPATCH_TIMEOUT_MS,
  MAX_EVIDENCE_CHARS,
  type NodeDispatchResponse,
  type WsAttemptEvidenceRequest,
  type WsTaskExecutePayload,
  WsTaskExecuteResult
} from "./schema.ts"

/** How long after its task ends an attempt still accepts evidence (evidence sent just before the answer may be handled just after it). */
export const EVIDENCE_GRACE = Duration.seconds(5)

/** Default time to wait for a node's answer. */
export const DEFAULT_DISPATCH_TIMEOUT = Duration.millis(DISPATCH_TIMEOUT_MS.default)

/** Most refusals reported in `NoEligibleNode.details.refusals`. */
const MAX_REFUSALS = 20

/** What to run, and where. */
export interface DispatchInput {
  /** Capability id the node must be allowed and ready to run (`cli.exec`). */
  readonly capability: string
  /** Sent as `task.execute`'s `action`. */
  readonly action: unknown
  /** Only this node (device id) may run it; any eligible node when absent. */
  readonly node_id?: string | undefined
  /** Task ids; default `dispatch-<uuid>`, `0` and a fresh uuid. */
  readonly run_id?: string | undefined
  readonly step_id?: string | undefined
  readonly attempt_id?: string | undefined
  /** Time to wait for the node's answer (default 30 s). */
  readonly timeout?: Duration.Input | undefined
}

/** An attempt being executed (or that just ended: `endedAt`). */
interface Attempt {
  readonly runId: string
  readonly stepId: string
  readonly attemptId: string
  readonly nodeId: string
  readonly connectionId: string
  endedAt: number | undefined
}

const decodeTaskResult = makeDecoder(WsTaskExecuteResult, { label: "result" })

/** The `evidence` of a node's error `details`, if any. */
const evidenceOf = (details: unknown): { readonly evidence?: unknown } =>
  typeof details === "object" && details !== null && "evidence" in details
    ? { evidence: (details as { readonly evidence: unknown }).evidence }
    : {}

const noEligibleMessage = (input: DispatchInput, refusals: ReadonlyArray<Refusal>): string => {
  if (input.node_id !== undefined) {
    if (refusals.length === 0) return `node ${input.node_id} is not connected`
    return `node ${input.node_id} cannot run ${input.capability}: ${[...new Set(refusals.map((r) => r.reason))].join("; ")}`
  }
  if (refusals.length === 0) return `no eligible node for ${input.capability}: no node is connected`
  return `no eligible node for ${input.capability}: ${refusals.map((r) => `${r.node_id} ${r.reason}`).join("; ")}`
}

/** Task dispatch to nodes and the evidence of running attempts. */
export class NodeDispatch extends Context.Service<NodeDispatch, {
  /**
   * Runs one task on a node: the least busy connected node whose pairing is
   * approved and whose allowlist and ready set contain `capability` (ties:
   * the earliest connection), or `node_id` only. Returns the node's answer.
   * Fails with `NoEligibleNode`, `NodeTaskFailed` (the node answered an
   * error; carries its evidence), `NodeTaskTimeout` or `NodeDisconnected`.
   * A task id already executing is a defect.
   */
  readonly dispatch: (input: DispatchInput) => Effect.Effect<NodeDispatchResponse, DispatchError>
  /**
   * Accepts `attempt.evidence` from `connection` and broadcasts it: the
   * attempt must be executing (or have ended within the grace) on this node
   * (`NotFound` otherwise; another node's attempt is `Forbidden`), the node's
   * pairing approved (`Forbidden`), the evidence at most 256 KiB characters
   * of JSON (`EvidenceTooLarge`).
   */
  readonly evidence: (
    connection: ConnectionEntry,
    request: WsAttemptEvidenceRequest
  ) => Effect.Effect<void, NotFound | Forbidden | EvidenceTooLarge>
  /** Tasks sent to `connectionId` and not answered yet. */
  readonly inFlight: (connectionId: string) => number
}>()("svc-gateway/nodes/NodeDispatch") {
  /** Needs the {@link Backplane}, the {@link EventBus} and {@link Pairings}. */
  static readonly layerNoDeps = Layer.effect(
    NodeDispatch,
    Effect.gen(function*() {
      const backplane = yield* Backplane
      const events = yield* EventBus
      const pairings = yield* Pairings
      const inFlight = new Map<string, number>()
      const attempts = new Map<string, Attempt>()
      const graceMs = Duration.toMillis(EVIDENCE_GRACE)

      const busy = (connectionId: string): number => inFlight.get(connectionId) ?? 0

      const prune = (now: number): void => {
        for (const [id, attempt] of attempts) {
          if (attempt.endedAt !== undefined && now - attempt.endedAt > graceMs) attempts.delete(id)
        }
      }

      /** The least busy eligible connection, or why there is none. */
      const choose = Effect.fnUntraced(function*(input: DispatchInput) {
        const candidates = backplane.connections().filter((c) =>
          c.role === "node" && (input.node_id === undefined || c.deviceId === input.node_id)
        )
        const pairingByNode = new Map<string, Pairing | undefined>()
        const refusals: Array<Refusal> = []
        let chosen: ConnectionEntry | undefined
        // Directory order is connection order: on a tie the earliest connection wins.
        for (const connection of candidates) {
          if (!pairingByNode.has(connection.deviceId)) {
            pairingByNode.set(connection.deviceId, yield* pairings.findByNode(connection.deviceId))
          }
          const verdict = eligibility(connection, pairingByNode.get(connection.deviceId), input.capability)
          if (!verdict.eligible) {
            if (!refusals.some((r) => r.node_id === connection.deviceId && r.reason === verdict.reason)) {
              refusals.push({ node_id: connection.deviceId, reason: verdict.reason })
            }
          } else if (chosen === undefined || busy(connection.connectionId) < busy(chosen.connectionId)) {
            chosen = connection
          }
        }
        if (chosen !== undefined) return chosen
        return yield* new NoEligibleNode({
          message: noEligibleMessage(input, refusals),
          details: {
            capability: input.capability,
            ...(input.node_id !== undefined ? { node_id: input.node_id } : {}),
            refusals: refusals.slice(0, MAX_REFUSALS)
          }
        })
      })

      const dispatch = Effect.fn("NodeDispatch.dispatch")(function*(input: DispatchInput) {
        const connection = yield* choose(input)
        const ids = {
          node_id: connection.deviceId,
          run_id: input.run_id ?? `dispatch-${crypto.randomUUID()}`,
          step_id: input.step_id ?? "0",
          attempt_id: input.attempt_id ?? crypto.randomUUID()
        }
        const timeout = input.timeout ?? DEFAULT_DISPATCH_TIMEOUT
        const payload: WsTaskExecutePayload = {
          run_id: ids.run_id,
          step_id: ids.step_id,
          attempt_id: ids.attempt_id,
          action: input.action
        }
        const toDispatchError = (error: PeerRequestError): DispatchError => {
          switch (error._tag) {
            case "PeerRequestFailed":
              return new NodeTaskFailed({
                message: `node ${ids.node_id} reported an error: ${error.code}: ${error.message}`,
                details: { ...ids, node_error: { code: error.code, message: error.message }, ...evidenceOf(error.details) }
              })
            case "PeerRequestTimeout":
              return new NodeTaskTimeout({
                message: `node ${ids.node_id} did not answer within ${Duration.format(Duration.fromInputUnsafe(timeout))}`,
                details: { ...ids, timeout_ms: Duration.toMillis(timeout) }
              })
            case "PeerDisconnected":
            case "PeerNotConnected":
              return new NodeDisconnected({ message: `node ${ids.node_id} disconnected before it answered`, details: ids })
          }
        }

        const acquire = Effect.suspend(() => {
          const running = attempts.get(ids.attempt_id)
          if (running !== undefined && running.endedAt === undefined) {
            return Effect.die(new Error(`attempt ${ids.attempt_id} is already executing on node ${running.nodeId}`))
          }
          const attempt: Attempt = {
            runId: ids.run_id,
            stepId: ids.step_id,
            attemptId: ids.attempt_id,
            nodeId: ids.node_id,
            connectionId: connection.connectionId,
            endedAt: undefined
          }
          attempts.set(ids.attempt_id, attempt)
          inFlight.set(connection.connectionId, busy(connection.connectionId) + 1)
          return Effect.succeed(attempt)
        })
        const release = (attempt: Attempt) =>
          Effect.map(Clock.currentTimeMillis, (now) => {
            const left = busy(connection.connectionId) - 1
            if (left > 0) inFlight.set(connection.connectionId, left)
            else inFlight.delete(connection.connectionId)
            attempt.endedAt = now
            prune(now)
          })
        const answer = yield* Effect.acquireUseRelease(
          acquire,
          () =>
            backplane.request(connection.connectionId, "task.execute", payload, {
              timeout,
              requestId: `task-${crypto.randomUUID()}`
            }).pipe(Effect.mapError(toDispatchError)),
          release
        )
        const decoded = decodeTaskResult(answer === undefined ? {} : answer)
        if (Result.isFailure(decoded)) {
          return yield* new NodeTaskFailed({
            message: `node ${ids.node_id} answered with an invalid result: ${decoded.failure}`,
            details: { ...ids, node_error: { code: "invalid_result", message: decoded.failure } }
          })
        }
        const response: NodeDispatchResponse = {
          ...ids,
          ...("result" in decoded.success ? { result: decoded.success.result } : {}),
          ...("evidence" in decoded.success ? { evidence: decoded.success.evidence } : {})
        }
        return response
      })

      const evidence = Effect.fn("NodeDispatch.evidence")(function*(
        connection: ConnectionEntry,
        request: WsAttemptEvidenceRequest
      ) {
        const chars = JSON.stringify(request.evidence)?.length ?? 0
        if (chars > MAX_EVIDENCE_CHARS) {
          return yield* new EvidenceTooLarge({
            message: `evidence: at most ${MAX_EVIDENCE_CHARS} characters of JSON, got ${chars}`,
            details: { max_chars: MAX_EVIDENCE_CHARS, actual_chars: chars }
          })
        }
        prune(yield* Clock.currentTimeMillis)
        const attempt = attempts.get(request.attempt_id)
        if (attempt === undefined || attempt.runId !== request.run_id || attempt.stepId !== request.step_id) {
          return yield* new NotFound({
            message: `attempt ${request.attempt_id} of run ${request.run_id}, step ${request.step_id} is not executing`
          })
        }
        if (attempt.nodeId !== connection.deviceId) {
          return yield* new Forbidden({ message: `attempt ${request.attempt_id} is executed by another node` })
        }
        const pairing = yield* pairings.findByNode(connection.deviceId)
        if (pairing?.status !== "approved") {
          return yield* new Forbidden({ message: `node ${connection.deviceId} is not paired (approved)` })
        }
        yield* events.publish(
          AttemptEvidenceEvent,
          {
            node_id: connection.deviceId,
            run_id: request.run_id,
            step_id: request.step_id,
            attempt_id: request.attempt_id,
            evidence: request.evidence
          },
          { kind: "run", run_id: request.run_id }
        )
      })

      // `inFlight` answers a plain number (no Effect, no span).
      return NodeDispatch.of({ dispatch, evidence, inFlight: busy })
    })
  )

  /** Wired: on the backplane, the event bus and the pairing store. */
  static readonly layer = NodeDispatch.layerNoDeps.pipe(
    Layer.provide(Layer.mergeAll(Backplane.layer, EventBus.layer, Pairings.layer))
  )
}
