/**
 * The work board (issue 24 §2; reference §5.3 `work.*`; docs/work.md).
 *
 * Every record belongs to one WorkScope `{tenant_id, agent_id, workspace_id}`,
 * given flat in every request; a record of another scope reads as unknown
 * (`not_found`). Items move through the state machine of transitions.ts, each
 * move one conditional write (WorkRepo.ts); entering `doing` is limited to
 * {@link WIP_LIMIT} items per scope, decided by the database under concurrency.
 * `depends_on` links never close a cycle and never join two scopes. `time`
 * signals fire at their `at` (signalTimer.ts); `event` signals when
 * `work.signal.update` sets `fired`.
 *
 * Audit (docs/audit.md): item creation, every transition and every decision
 * record publish a `Decision` on the gateway-wide chain {@link WORK_CHAIN}, in
 * the transaction of the write. Events (events.ts) are published after commit.
 *
 * @module
 */
import { Clock, Context, Effect, Layer } from "effect"
import { BackgroundJobs } from "../backplane/BackgroundJobs.ts"
import { Decision, type DecisionAction } from "../domain-events/decisions.ts"
import { DomainEvents } from "../domain-events/DomainEvents.ts"
import { clampLimit, pageOf } from "../shared/cursor.ts"
import { isoTime as iso } from "../shared/time.ts"
import { EventBus } from "../ws-sessions/EventBus.ts"
import type { GatewayEvent } from "../ws-sessions/GatewayEvent.ts"
import { workCursor } from "./cursor.ts"
import { InvalidRequest, InvalidTransition, NotFound, WipLimitExceeded } from "./errors.ts"
import * as Events from "./events.ts"
import type {
  StateKvEntry,
  StateKvScope,
  WorkArtifact,
  WorkArtifactCreateRequest,
  WorkArtifactListRequest,
  WorkCreateRequest,
  WorkDecision,
  WorkDecisionCreateRequest,
  WorkItem,
  WorkItemStatus,
  WorkLink,
  WorkLinkCreateRequest,
  WorkListRequest,
  WorkScope,
  WorkSignal,
  WorkSignalCreateRequest,
  WorkSignalStatus,
  WorkSignalUpdateRequest,
  WorkTransitionRequest,
  WorkUpdateRequest
} from "./schema.ts"
import { makeSignalTimer, SIGNAL_JOB } from "./signalTimer.ts"
import { canMove, TRANSITIONS, WIP_LIMIT } from "./transitions.ts"
import { type WorkItemRow, WorkRepo, type WorkSignalRow } from "./WorkRepo.ts"

export { WIP_LIMIT } from "./transitions.ts"

/** The gateway-wide audit chain of work board decisions. */
export const WORK_CHAIN = "gateway.work"

/** Page size bounds of the listings: values outside are clamped. */
export const DEFAULT_PAGE = 50
export const MAX_PAGE = 500

/** `limit` clamped to 1..{@link MAX_PAGE} (default {@link DEFAULT_PAGE}). */
const clampPage = (limit: number | undefined): number => clampLimit(limit, DEFAULT_PAGE, MAX_PAGE)

/** The WorkScope of a request. */
const scopeOf = (r: WorkScope): WorkScope => ({ tenant_id: r.tenant_id, agent_id: r.agent_id, workspace_id: r.workspace_id })

const sameScope = (a: WorkScope, b: WorkScope) =>
  a.tenant_id === b.tenant_id && a.agent_id === b.agent_id && a.workspace_id === b.workspace_id

/** The event announcing an item that entered `status`. */
const itemEvent = (status: WorkItemStatus) => {
  switch (status) {
    case "blocked":
      return Events.WorkItemBlocked
    case "done":
      return Events.WorkItemCompleted
    case "failed":
      return Events.WorkItemFailed
    case "cancelled":
      return Events.WorkItemCancelled
    default:
      return Events.WorkItemUpdated
  }
}

/** Signal status changes `work.signal.update` accepts (`fired` only for event signals). */
const SIGNAL_MOVES: Readonly<Record<WorkSignalStatus, ReadonlyArray<WorkSignalStatus>>> = {
  active: ["paused", "fired", "cancelled"],
  paused: ["active", "fired", "cancelled"],
  fired: ["resolved"],
  resolved: [],
  cancelled: []
}

/** A time signal's moment (`{"at": "<ISO time>"}`), normalised to ISO, or an error message. */
const dueAtOf = (spec: unknown): { readonly at: string } | { readonly error: string } => {
  const at = typeof spec === "object" && spec !== null && !Array.isArray(spec) ? (spec as { at?: unknown }).at : undefined
  const ms = typeof at === "string" ? Date.parse(at) : Number.NaN
  return Number.isFinite(ms) ? { at: iso(ms) } : { error: "trigger_spec_json: a time signal needs {\"at\": \"<ISO time>\"}" }
}

/** The work board service: one method per `work.*` request type. */
export class Work extends Context.Service<Work, {
  /** `work.create`: a new item in `backlog`; `sessionKey` names where it came from. */
  readonly create: (request: WorkCreateRequest, sessionKey: string) => Effect.Effect<{ item: WorkItem }, InvalidRequest>
  readonly list: (request: WorkListRequest) => Effect.Effect<{ items: ReadonlyArray<WorkItem>; next_cursor?: string }, InvalidRequest>
  readonly get: (request: WorkScope & { readonly work_item_id: string }) => Effect.Effect<{ item: WorkItem }, NotFound>
  readonly update: (request: WorkUpdateRequest) => Effect.Effect<{ item: WorkItem }, NotFound>
  /** `work.transition`: `InvalidTransition` off the state machine, `WipLimitExceeded` when `doing` is full. */
  readonly transition: (request: WorkTransitionRequest) => Effect.Effect<{ item: WorkItem }, NotFound | InvalidTransition | WipLimitExceeded>
  /** `work.link.create`: `InvalidRequest` for a self link, a cycle or another scope's item. */
  readonly linkCreate: (request: WorkLinkCreateRequest) => Effect.Effect<{ link: WorkLink }, NotFound | InvalidRequest>
  readonly linkList: (request: WorkScope & { readonly work_item_id: string }) => Effect.Effect<{ links: ReadonlyArray<WorkLink> }, NotFound>
  readonly artifactCreate: (request: WorkArtifactCreateRequest) => Effect.Effect<{ artifact: WorkArtifact }, NotFound>
  readonly artifactList: (request: WorkArtifactListRequest) => Effect.Effect<{ artifacts: ReadonlyArray<WorkArtifact>; next_cursor?: string }, InvalidRequest>
  readonly artifactGet: (request: WorkScope & { readonly artifact_id: string }) => Effect.Effect<{ artifact: WorkArtifact }, NotFound>
  readonly decisionCreate: (request: WorkDecisionCreateRequest) => Effect.Effect<{ decision: WorkDecision }, NotFound>
  readonly decisionList: (request: WorkScope & { readonly work_item_id?: string }) => Effect.Effect<{ decisions: ReadonlyArray<WorkDecision> }>
  readonly decisionGet: (request: WorkScope & { readonly decision_id: string }) => Effect.Effect<{ decision: WorkDecision }, NotFound>
  readonly signalCreate: (request: WorkSignalCreateRequest) => Effect.Effect<{ signal: WorkSignal }, NotFound | InvalidRequest>
  readonly signalList: (request: WorkScope & { readonly work_item_id?: string }) => Effect.Effect<{ signals: ReadonlyArray<WorkSignal> }>
  readonly signalGet: (request: WorkScope & { readonly signal_id: string }) => Effect.Effect<{ signal: WorkSignal }, NotFound>
  readonly signalUpdate: (request: WorkSignalUpdateRequest) => Effect.Effect<{ signal: WorkSignal }, NotFound | InvalidRequest>
  readonly kvGet: (request: WorkScope & { readonly scope: StateKvScope; readonly key: string }) => Effect.Effect<{ entry: StateKvEntry | null }, NotFound>
  readonly kvList: (request: WorkScope & { readonly scope: StateKvScope; readonly prefix?: string }) => Effect.Effect<{ entries: ReadonlyArray<StateKvEntry> }, NotFound>
  readonly kvSet: (request: WorkScope & { readonly scope: StateKvScope; readonly key: string; readonly value_json: unknown }) => Effect.Effect<{ entry: StateKvEntry }, NotFound>
}>()("svc-gateway/work/Work") {
  /** The service over its dependencies (repository, event bus, domain events). */
  static readonly layerNoDeps = Layer.effect(
    Work,
    Effect.gen(function*() {
      const repo = yield* WorkRepo
      const events = yield* EventBus
      const domainEvents = yield* DomainEvents
      const now = Effect.map(Clock.currentTimeMillis, iso)

      const audit = (action: DecisionAction) => domainEvents.publish(Decision, { chain: WORK_CHAIN, action })
      const announce = <P extends GatewayEvent["payload"]>(event: GatewayEvent<string, P>, payload: P["Type"], scope: WorkScope) =>
        Effect.asVoid(events.publish(event, payload, { kind: "work", ...scopeOf(scope) }))

      const notFound = (what: string) => new NotFound({ message: `${what} not found` })
      const requireItem = (scope: WorkScope, id: string) =>
        Effect.flatMap(repo.getItem(id), (item) =>
          item !== undefined && sameScope(item, scope) ? Effect.succeed(item) : Effect.fail(notFound("work item")))
      const optionalItem = (scope: WorkScope, id: string | undefined) =>
        id === undefined ? Effect.void : Effect.asVoid(requireItem(scope, id))
      const decodeCursor = (cursor: string | undefined) =>
        cursor === undefined ? Effect.succeed(undefined) : Effect.fromNullishOr(workCursor.decode(cursor)).pipe(
          Effect.mapError(() => new InvalidRequest({ message: "invalid cursor" }))
        )
      const page = <A>(rows: ReadonlyArray<A>, limit: number, position: (a: A) => readonly [string, string]) =>
        pageOf(workCursor, rows, limit, position)

      const create = Effect.fn("Work.create")(function*(request: WorkCreateRequest, sessionKey: string) {
        const scope = scopeOf(request)
        const { item: input } = request
        if (input.parent_work_item_id !== undefined) {
          const parent = yield* repo.getItem(input.parent_work_item_id)
          if (parent === undefined || !sameScope(parent, scope)) {
            return yield* new InvalidRequest({ message: "item.parent_work_item_id: no such work item in this scope" })
          }
        }
        const at = yield* now
        const row: WorkItemRow = {
          work_item_id: crypto.randomUUID(),
          ...scope,
          kind: input.kind,
          title: input.title,
          status: "backlog",
          priority: input.priority ?? 0,
          created_at: at,
          created_from_session_key: sessionKey,
          last_active_at: at,
          acceptance: input.acceptance ?? null,
          fingerprint: input.fingerprint ?? null,
          budgets: input.budgets ?? null,
          parent_work_item_id: input.parent_work_item_id ?? null,
          updated_at: null
        }
        const item = yield* repo.transaction(Effect.tap(repo.insertItem(row), (item) =>
          audit({ type: "work.item.created", work_item_id: item.work_item_id, ...scope, kind: item.kind, title: item.title })))
        yield* announce(Events.WorkItemCreated, { item }, scope)
        return { item }
      })

      const list = Effect.fn("Work.list")(function*(request: WorkListRequest) {
        const after = yield* decodeCursor(request.cursor)
        const limit = clampPage(request.limit)
        const rows = yield* repo.listItems(scopeOf(request), { statuses: request.statuses, kinds: request.kinds, after, limit: limit + 1 })
        const { rows: items, next_cursor } = page(rows, limit, (i) => [i.created_at, i.work_item_id])
        return next_cursor === undefined ? { items } : { items, next_cursor }
      })

      const update = Effect.fn("Work.update")(function*(request: WorkUpdateRequest) {
        const scope = scopeOf(request)
        yield* requireItem(scope, request.work_item_id)
        const updated = yield* repo.updateItem(request.work_item_id, request.patch, yield* now)
        if (updated === undefined) return yield* notFound("work item")
        yield* announce(Events.WorkItemUpdated, { item: updated }, scope)
        return { item: updated }
      })

      const transition = Effect.fn("Work.transition")(function*(request: WorkTransitionRequest) {
        const scope = scopeOf(request)
        const to = request.status
        // A lost conditional write means the item moved meanwhile: decide again from its new state.
        for (let round = 0;; round++) {
          const item = yield* requireItem(scope, request.work_item_id)
          const from = item.status
          if (!canMove(from, to)) {
            return yield* new InvalidTransition({
              message: `cannot move a work item from ${from} to ${to}`,
              details: { code: "invalid_transition", from, to, allowed: TRANSITIONS[from] }
            })
          }
          const at = yield* now
          const moved = yield* repo.transaction(Effect.tap(
            repo.moveItem(item.work_item_id, scope, { from, to, at, wipLimit: to === "doing" ? WIP_LIMIT : undefined }),
            (moved) => moved === undefined ? Effect.void : audit({
              type: "work.item.transitioned",
              work_item_id: moved.work_item_id,
              ...scope,
              from,
              to,
              ...(request.reason !== undefined ? { reason: request.reason } : {})
            })
          ))
          if (moved !== undefined) {
            yield* announce(itemEvent(to), { item: moved }, scope)
            return { item: moved }
          }
          const latest = yield* requireItem(scope, request.work_item_id)
          if (latest.status === from && to === "doing") {
            const current = yield* repo.countDoing(scope)
            return yield* new WipLimitExceeded({
              message: `WIP limit reached: ${current} of ${WIP_LIMIT} work items are in doing`,
              details: { code: "wip_limit_exceeded", from, to: "doing", limit: WIP_LIMIT, current }
            })
          }
          if (round >= 10) return yield* Effect.die(new Error("work.transition: the item kept moving"))
        }
      })

      const linkCreate = Effect.fn("Work.linkCreate")(function*(request: WorkLinkCreateRequest) {
        const scope = scopeOf(request)
        yield* requireItem(scope, request.work_item_id)
        const linked = yield* repo.getItem(request.linked_work_item_id)
        if (linked === undefined) return yield* notFound("linked work item")
        if (!sameScope(linked, scope)) {
          return yield* new InvalidRequest({ message: "linked_work_item_id: a depends_on link cannot join work items of different scopes" })
        }
        if (request.work_item_id === request.linked_work_item_id) {
          return yield* new InvalidRequest({ message: "linked_work_item_id: a work item cannot depend on itself" })
        }
        const link: WorkLink = { ...scope, work_item_id: request.work_item_id, linked_work_item_id: request.linked_work_item_id, kind: "depends_on", created_at: yield* now }
        const created = yield* repo.transaction(Effect.gen(function*() {
          yield* repo.lockScope(scope)
          const edges = yield* repo.dependsOnEdges(scope)
          if (reaches(edges, link.linked_work_item_id, link.work_item_id)) {
            return yield* new InvalidRequest({ message: "linked_work_item_id: this depends_on link would close a cycle" })
          }
          return yield* repo.insertLink(link)
        }))
        if (created) yield* announce(Events.WorkLinkCreated, { link }, scope)
        return { link }
      })

      const signalCreate = Effect.fn("Work.signalCreate")(function*(request: WorkSignalCreateRequest) {
        const scope = scopeOf(request)
        const { signal: input } = request
        yield* optionalItem(scope, input.work_item_id)
        let due: string | null = null
        if (input.trigger_kind === "time") {
          const parsed = dueAtOf(input.trigger_spec_json)
          if ("error" in parsed) return yield* new InvalidRequest({ message: parsed.error })
          due = parsed.at
        }
        const row: WorkSignalRow = {
          signal_id: crypto.randomUUID(),
          ...scope,
          work_item_id: input.work_item_id ?? null,
          trigger_kind: input.trigger_kind,
          trigger_spec_json: input.trigger_spec_json,
          payload_json: input.payload_json ?? null,
          status: "active",
          due_at: due,
          created_at: yield* now,
          updated_at: null,
          fired_at: null
        }
        const signal = yield* repo.insertSignal(row)
        yield* announce(Events.WorkSignalCreated, { signal }, scope)
        if (due !== null) timer.notify(Date.parse(due))
        return { signal }
      })

      const requireSignal = (scope: WorkScope, id: string) =>
        Effect.flatMap(repo.getSignal(id), (row) =>
          row !== undefined && sameScope(row, scope) ? Effect.succeed(row) : Effect.fail(notFound("work signal")))

      const signalUpdate = Effect.fn("Work.signalUpdate")(function*(request: WorkSignalUpdateRequest) {
        const scope = scopeOf(request)
        const current = yield* requireSignal(scope, request.signal_id)
        const { patch } = request
        const status = patch.status ?? current.status
        if (status !== current.status && !SIGNAL_MOVES[current.status].includes(status)) {
          return yield* new InvalidRequest({ message: `patch.status: a ${current.status} signal cannot become ${status}` })
        }
        if (status === "fired" && current.status !== "fired" && current.trigger_kind === "time") {
          return yield* new InvalidRequest({ message: "patch.status: time signals fire at their time; only event signals are fired by an update" })
        }
        const spec = patch.trigger_spec_json ?? current.trigger_spec_json
        let due: string | null = null
        if (current.trigger_kind === "time" && status === "active") {
          const parsed = dueAtOf(spec)
          if ("error" in parsed) return yield* new InvalidRequest({ message: parsed.error })
          due = parsed.at
        }
        const at = yield* now
        const fired = status === "fired" && current.status !== "fired"
        const signal = yield* repo.updateSignal(current.signal_id, current.status, {
          status,
          trigger_spec_json: spec,
          ...(patch.payload_json !== undefined ? { payload_json: patch.payload_json } : {}),
          due_at: due,
          updated_at: at,
          ...(fired ? { fired_at: at } : {})
        })
        if (signal === undefined) return yield* new InvalidRequest({ message: "the signal changed meanwhile; read it and try again" })
        yield* announce(fired ? Events.WorkSignalFired : Events.WorkSignalUpdated, { signal }, scope)
        if (due !== null) timer.notify(Date.parse(due))
        return { signal }
      })

      const fireDue = Effect.gen(function*() {
        const fired = yield* repo.fireDue(yield* now)
        yield* Effect.forEach(fired, (signal) => announce(Events.WorkSignalFired, { signal }, signal), { discard: true })
      })
      const timer = makeSignalTimer({ fireDue, nextDue: repo.nextDue })
      yield* (yield* BackgroundJobs).singleton({ name: SIGNAL_JOB, run: timer.run })

      const kvScope = (scope: WorkScope, kv: StateKvScope) => kv.kind === "agent" ? Effect.void : Effect.asVoid(requireItem(scope, kv.work_item_id))

      return Work.of({
        create,
        list,
        get: Effect.fn("Work.get")((request) => Effect.map(requireItem(scopeOf(request), request.work_item_id), (item) => ({ item }))),
        update,
        transition,
        linkCreate,
        linkList: Effect.fn("Work.linkList")(function*(request) {
          yield* requireItem(scopeOf(request), request.work_item_id)
          return { links: yield* repo.listLinks(request.work_item_id) }
        }),
        artifactCreate: Effect.fn("Work.artifactCreate")(function*(request) {
          const scope = scopeOf(request)
          const { artifact: input } = request
          yield* optionalItem(scope, input.work_item_id)
          const artifact = yield* repo.insertArtifact({
            artifact_id: crypto.randomUUID(),
            ...scope,
            work_item_id: input.work_item_id ?? null,
            kind: input.kind,
            title: input.title,
            body_md: input.body_md ?? null,
            refs: input.refs,
            created_at: yield* now
          })
          yield* announce(Events.WorkArtifactCreated, { artifact }, scope)
          return { artifact }
        }),
        artifactList: Effect.fn("Work.artifactList")(function*(request) {
          const after = yield* decodeCursor(request.cursor)
          const limit = clampPage(request.limit)
          const rows = yield* repo.listArtifacts(scopeOf(request), request.work_item_id, after, limit + 1)
          const { rows: artifacts, next_cursor } = page(rows, limit, (a) => [a.created_at, a.artifact_id])
          return next_cursor === undefined ? { artifacts } : { artifacts, next_cursor }
        }),
        artifactGet: Effect.fn("Work.artifactGet")(function*(request) {
          const artifact = yield* repo.getArtifact(request.artifact_id)
          if (artifact === undefined || !sameScope(artifact, request)) return yield* notFound("work artifact")
          return { artifact }
        }),
        decisionCreate: Effect.fn("Work.decisionCreate")(function*(request) {
          const scope = scopeOf(request)
          const { decision: input } = request
          yield* optionalItem(scope, input.work_item_id)
          const decision = yield* repo.transaction(Effect.tap(repo.insertDecision({
            decision_id: crypto.randomUUID(),
            ...scope,
            work_item_id: input.work_item_id ?? null,
            question: input.question,
            chosen: input.chosen,
            alternatives: input.alternatives,
            rationale_md: input.rationale_md,
            input_artifact_ids: input.input_artifact_ids,
            created_at: yield* now
          }), (decision) =>
            audit({
              type: "work.decision.created",
              decision_id: decision.decision_id,
              ...scope,
              ...(decision.work_item_id !== undefined ? { work_item_id: decision.work_item_id } : {}),
              question: decision.question,
              chosen: decision.chosen
            })))
          yield* announce(Events.WorkDecisionCreated, { decision }, scope)
          return { decision }
        }),
        decisionList: Effect.fn("Work.decisionList")((request) =>
          Effect.map(repo.listDecisions(scopeOf(request), request.work_item_id), (decisions) => ({ decisions }))),
        decisionGet: Effect.fn("Work.decisionGet")(function*(request) {
          const decision = yield* repo.getDecision(request.decision_id)
          if (decision === undefined || !sameScope(decision, request)) return yield* notFound("work decision")
          return { decision }
        }),
        signalCreate,
        signalList: Effect.fn("Work.signalList")((request) =>
          Effect.map(repo.listSignals(scopeOf(request), request.work_item_id), (signals) => ({ signals }))),
        signalGet: Effect.fn("Work.signalGet")(function*(request) {
          const { due_at: _, ...row } = yield* requireSignal(scopeOf(request), request.signal_id)
          return { signal: Object.fromEntries(Object.entries(row).filter(([, v]) => v !== null)) as WorkSignal }
        }),
        signalUpdate,
        kvGet: Effect.fn("Work.kvGet")(function*(request) {
          yield* kvScope(scopeOf(request), request.scope)
          return { entry: (yield* repo.getKv(scopeOf(request), request.scope, request.key)) ?? null }
        }),
        kvList: Effect.fn("Work.kvList")(function*(request) {
          yield* kvScope(scopeOf(request), request.scope)
          return { entries: yield* repo.listKv(scopeOf(request), request.scope, request.prefix ?? "") }
        }),
        kvSet: Effect.fn("Work.kvSet")(function*(request) {
          const scope = scopeOf(request)
          yield* kvScope(scope, request.scope)
          const entry = yield* repo.setKv({
            ...scope,
            scope_kind: request.scope.kind,
            work_item_id: request.scope.kind === "agent" ? "" : request.scope.work_item_id,
            key: request.key,
            value_json: request.value_json,
            updated_at: yield* now
          })
          yield* announce(Events.WorkStateKvUpdated, { entry }, scope)
          return { entry }
        })
      })
    })
  )

  /**
   * Wired: storage ({@link WorkRepo}, migrated) and the event bus. Needs a
   * `SqlClient` and `DomainEvents` (the composition root provides it, with
   * the audit chain subscribed).
   */
  static readonly layer = Work.layerNoDeps.pipe(
    Layer.provide(WorkRepo.layer),
    Layer.provide(EventBus.layer)
  )
}

/** True when `target` is reachable from `start` along `edges` (`from` → `to`). */
export const reaches = (edges: ReadonlyArray<{ readonly from: string; readonly to: string }>, start: string, target: string): boolean => {
  const next = new Map<string, Array<string>>()
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to])
  const seen = new Set<string>()
  const stack = [start]
  while (stack.length > 0) {
    const node = stack.pop()!
    if (node === target) return true
    if (seen.has(node)) continue
    seen.add(node)
    stack.push(...(next.get(node) ?? []))
  }
  return false
}
