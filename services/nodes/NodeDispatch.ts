/**
 * Dispatch of tasks to nodes (reference §4 "Dispatch eligibility", §5.3
 * `task.execute`; docs/nodes.md): picks an eligible connected node (least
 * busy first), sends it `task.execute` and awaits its answer, with a
 * timeout. While a task runs (and for {@link EVIDENCE_GRACE} after), its
 * attempt is registered so that the executing node, and only it, may send
 * `attempt.evidence` for it; accepted evidence is broadcast to operators,
 * and its attachments are stored as artifacts of the attempt (issue 24 §4).
 * Candidates come from the {@link Backplane}'s directory and `task.execute`
 * goes through it; the in-flight counts and the attempts are this
 * instance's (docs/architecture.md "Backplane"). In a cluster (`SVC_CLUSTER=1`)
 * the attempts are also recorded in `node_attempts` (AttemptsRepo.ts), so the
 * evidence of a node connected to another instance is accepted there too.
 */
import { Clock, Context, Duration, Effect, Layer, Result } from "effect"
import { SqlClient } from "effect/sql"
import { Artifacts } from "../artifacts/Artifacts.ts"
import type { ArtifactQuotaExceeded } from "../artifacts/errors.ts"
import type { ArtifactLink, ArtifactRef } from "../artifacts/schema.ts"
import { Pairings } from "../pairing/Pairings.ts"
import type { Pairing } from "../pairing/schema.ts"
import { makeDecoder } from "../shared/decode.ts"
import { Backplane } from "../backplane/Backplane.ts"
import { BackplaneMode } from "../backplane/mode.ts"
import { isoTime } from "../shared/time.ts"
import { type AttemptsRepo, makeAttemptsRepo } from "./AttemptsRepo.ts"
import type { PeerRequestError } from "../backplane/errors.ts"
import type { ConnectionEntry } from "../backplane/schema.ts"
import { EventBus } from "../ws-sessions/EventBus.ts"
import { eligibility } from "./eligibility.ts"
import {
  type DispatchError,
  EvidenceTooLarge,
  Forbidden,
  InvalidRequest,
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
  MAX_ATTACHMENT_BYTES,
  MAX_EVIDENCE_CHARS,
  type NodeAttachment,
  NodeAttachments,
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
  /** The link of the artifacts the node attaches beyond the task ids: the run's policy snapshot and agent (a workflow step's). */
  readonly artifact_link?: ArtifactLinkContext | undefined
}

/** What links an attempt's attachments beyond its ids. */
export type ArtifactLinkContext = Omit<ArtifactLink, "run_id" | "step_id" | "attempt_id">

/** An attachment of `attempt.evidence`, decoded. */
interface DecodedAttachment {
  readonly kind: NodeAttachment["kind"]
  readonly bytes: Uint8Array
  readonly mime_type?: string | undefined
  readonly labels?: ReadonlyArray<string> | undefined
  readonly metadata?: Readonly<Record<string, unknown>> | undefined
}

const decodeAttachments = makeDecoder(NodeAttachments, { label: "evidence.attachments" })

/** Standard base64 characters with at most two `=` at the end (with a length multiple of 4: padded RFC 4648 §4). */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

/**
 * The attachments of `evidence` (an object's `attachments`), decoded, and the
 * evidence without them (what is broadcast and counted against
 * {@link MAX_EVIDENCE_CHARS}). `InvalidRequest` for attachments that do not
 * decode, invalid base64 or one above {@link MAX_ATTACHMENT_BYTES}.
 */
const splitAttachments = Effect.fnUntraced(function*(evidence: unknown) {
  if (typeof evidence !== "object" || evidence === null || Array.isArray(evidence) || !("attachments" in evidence)) {
    return { attachments: [] as ReadonlyArray<DecodedAttachment>, broadcast: evidence }
  }
  const { attachments: raw, ...rest } = evidence as { readonly attachments: unknown }
  const decoded = decodeAttachments(raw)
  if (Result.isFailure(decoded)) {
    const problem = decoded.failure
    return yield* new InvalidRequest({ message: `evidence.attachments${problem.startsWith("[") ? "" : ": "}${problem}` })
  }
  const attachments: Array<DecodedAttachment> = []
  for (const [index, attachment] of decoded.success.entries()) {
    const text = attachment.bytes_base64
    // Decoded size from the text's length, before decoding anything.
    const size = Math.floor(text.length / 4) * 3 - (text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0)
    const invalid = new InvalidRequest({ message: `evidence.attachments[${index}].bytes_base64: expected standard base64 (padded)` })
    if (text.length % 4 !== 0) return yield* invalid
    if (size > MAX_ATTACHMENT_BYTES) {
      return yield* new InvalidRequest({
        message: `evidence.attachments[${index}]: at most ${MAX_ATTACHMENT_BYTES} bytes decoded, got ${size}`
      })
    }
    if (!BASE64.test(text)) return yield* invalid
    attachments.push({
      kind: attachment.kind,
      bytes: new Uint8Array(Buffer.from(text, "base64")),
      mime_type: attachment.mime_type,
      labels: attachment.labels,
      metadata: attachment.metadata
    })
  }
  return { attachments: attachments as ReadonlyArray<DecodedAttachment>, broadcast: rest as unknown }
})

/** An attempt being executed (or that just ended: `endedAt`). */
interface Attempt {
  readonly runId: string
  readonly stepId: string
  readonly attemptId: string
  readonly nodeId: string
  readonly connectionId: string
  /** The link of the artifacts it attaches beyond its ids (its run's policy snapshot and agent). */
  readonly link: ArtifactLinkContext
  /** The artifacts the node attached through `attempt.evidence`, oldest first. */
  readonly artifacts: Array<ArtifactRef>
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
   * of JSON without the attachments' bytes (`EvidenceTooLarge`). An
   * object's `attachments` (schema.ts `NodeAttachment`: valid base64, at
   * most 5 MiB decoded each, else `InvalidRequest`) are stored with
   * `Artifacts.attach`, linked to the attempt (its run's policy snapshot and
   * agent from the dispatch's `artifact_link`) and listed in the dispatch's
   * answer; over the bundle's quotas `ArtifactQuotaExceeded`
   * (`quota_exceeded`; the attachments before it stay stored). The
   * broadcast evidence carries their refs instead of the bytes.
   */
  readonly evidence: (
    connection: ConnectionEntry,
    request: WsAttemptEvidenceRequest
  ) => Effect.Effect<void, InvalidRequest | NotFound | Forbidden | EvidenceTooLarge | ArtifactQuotaExceeded>
  /** Tasks sent to `connectionId` and not answered yet. */
  readonly inFlight: (connectionId: string) => number
}>()("svc-gateway/nodes/NodeDispatch") {
  /** Needs the {@link Backplane}, the {@link EventBus}, {@link Pairings} and `Artifacts`. */
  static readonly layerNoDeps = Layer.effect(
    NodeDispatch,
    Effect.gen(function*() {
      const backplane = yield* Backplane
      const events = yield* EventBus
      const pairings = yield* Pairings
      const artifacts = yield* Artifacts
      // A cluster shares its attempts (AttemptsRepo): the node's evidence may arrive at another instance.
      const sql = (yield* BackplaneMode).cluster ? yield* Effect.serviceOption(SqlClient.SqlClient) : undefined
      const shared: AttemptsRepo | undefined = sql?._tag === "Some" ? makeAttemptsRepo(sql.value) : undefined
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
            link: input.artifact_link ?? {},
            artifacts: [],
            endedAt: undefined
          }
          attempts.set(ids.attempt_id, attempt)
          inFlight.set(connection.connectionId, busy(connection.connectionId) + 1)
          if (shared === undefined) return Effect.succeed(attempt)
          return Effect.as(
            Effect.flatMap(Clock.currentTimeMillis, (now) =>
              shared.start({
                attempt_id: ids.attempt_id,
                run_id: ids.run_id,
                step_id: ids.step_id,
                node_id: ids.node_id,
                link: JSON.stringify(attempt.link),
                artifacts: "[]",
                started_at: isoTime(now),
                ended_at: null
              })),
            attempt
          )
        })
        const release = (attempt: Attempt) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) => {
            const left = busy(connection.connectionId) - 1
            if (left > 0) inFlight.set(connection.connectionId, left)
            else inFlight.delete(connection.connectionId)
            attempt.endedAt = now
            prune(now)
            if (shared === undefined) return Effect.void
            // Artifacts the node attached through another instance (where its connection is) join this answer's.
            return Effect.andThen(
              Effect.map(shared.end(attempt.attemptId, isoTime(now)), (recorded) => {
                for (const ref of JSON.parse(recorded) as Array<ArtifactRef>) {
                  if (!attempt.artifacts.some((a) => a.artifact_id === ref.artifact_id)) attempt.artifacts.push(ref)
                }
              }),
              shared.prune(isoTime(now - graceMs))
            )
          })
        let attached: ReadonlyArray<ArtifactRef> = []
        const answer = yield* Effect.acquireUseRelease(
          acquire,
          (attempt) =>
            backplane.request(connection.connectionId, "task.execute", payload, {
              timeout,
              requestId: `task-${crypto.randomUUID()}`
            }).pipe(Effect.mapError(toDispatchError), Effect.ensuring(Effect.sync(() => void (attached = attempt.artifacts)))),
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
          ...("evidence" in decoded.success ? { evidence: decoded.success.evidence } : {}),
          ...(attached.length > 0 ? { artifacts: [...attached] } : {})
        }
        return response
      })

      /** An attempt another instance dispatched, executing or ended within the grace; `undefined` otherwise. */
      const sharedAttempt = (attemptId: string, now: number): Effect.Effect<Attempt | undefined> =>
        Effect.map(shared!.find(attemptId), (row) => {
          if (row === undefined) return undefined
          const endedAt = row.ended_at === null ? undefined : Date.parse(row.ended_at)
          if (endedAt !== undefined && now - endedAt > graceMs) return undefined
          return {
            runId: row.run_id,
            stepId: row.step_id,
            attemptId: row.attempt_id,
            nodeId: row.node_id,
            connectionId: "",
            link: JSON.parse(row.link) as ArtifactLinkContext,
            artifacts: JSON.parse(row.artifacts) as Array<ArtifactRef>,
            endedAt
          }
        })

      const evidence = Effect.fn("NodeDispatch.evidence")(function*(
        connection: ConnectionEntry,
        request: WsAttemptEvidenceRequest
      ) {
        const { attachments, broadcast } = yield* splitAttachments(request.evidence)
        const chars = JSON.stringify(broadcast)?.length ?? 0
        if (chars > MAX_EVIDENCE_CHARS) {
          return yield* new EvidenceTooLarge({
            message: `evidence: at most ${MAX_EVIDENCE_CHARS} characters of JSON, got ${chars}`,
            details: { max_chars: MAX_EVIDENCE_CHARS, actual_chars: chars }
          })
        }
        const now = yield* Clock.currentTimeMillis
        prune(now)
        // Dispatched here, or (in a cluster) by another instance while the node's connection is on this one.
        const attempt = attempts.get(request.attempt_id) ?? (shared === undefined ? undefined : yield* sharedAttempt(request.attempt_id, now))
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
        const refs: Array<ArtifactRef> = []
        for (const attachment of attachments) {
          const ref = yield* artifacts.attach({
            kind: attachment.kind,
            bytes: attachment.bytes,
            mime_type: attachment.mime_type,
            labels: attachment.labels,
            metadata: attachment.metadata,
            link: { run_id: attempt.runId, step_id: attempt.stepId, attempt_id: attempt.attemptId, ...attempt.link }
          })
          refs.push(ref)
          attempt.artifacts.push(ref)
        }
        // Recorded for the dispatching instance, which lists them in the task's answer.
        if (shared !== undefined && refs.length > 0) yield* shared.setArtifacts(attempt.attemptId, JSON.stringify(attempt.artifacts))
        yield* events.publish(
          AttemptEvidenceEvent,
          {
            node_id: connection.deviceId,
            run_id: request.run_id,
            step_id: request.step_id,
            attempt_id: request.attempt_id,
            evidence: refs.length === 0 && attachments.length === 0 ? request.evidence : { ...(broadcast as object), attachments: refs }
          },
          { kind: "run", run_id: request.run_id }
        )
      })

      // `inFlight` answers a plain number (no Effect, no span).
      return NodeDispatch.of({ dispatch, evidence, inFlight: busy })
    })
  )

  /** Wired: on the backplane, the event bus, the pairing store and the artifacts subsystem. */
  static readonly layer = NodeDispatch.layerNoDeps.pipe(
    Layer.provide(Layer.mergeAll(Backplane.layer, EventBus.layer, Pairings.layer, Artifacts.layer))
  )
}
