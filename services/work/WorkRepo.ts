/**
 * Work board persistence (tables of migrations/0001_work.ts), the same SQL on
 * SQLite and PostgreSQL. Every status change is ONE conditional write
 * (`UPDATE … WHERE status = <from> … RETURNING *`); entering `doing` also
 * counts the scope's `doing` items in that statement and only moves when the
 * count is below the limit. SQLite runs one writer at a time, so the
 * statement is atomic there; on PostgreSQL (READ COMMITTED) two such updates
 * of different rows could each see the other's row as not yet `doing`, so the
 * write runs in a transaction holding the scope's advisory lock
 * (`pg_advisory_xact_lock`), which {@link WorkRepo.lockScope} also gives the
 * `depends_on` cycle check.
 *
 * @module
 */
import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, type Statement } from "effect/sql"
import { migrate } from "../../layers/storage/migrations.ts"
import { TimestampColumn } from "../../layers/storage/columns.ts"
import { findRows } from "../../layers/storage/rows.ts"
import { repositoryEdge, transactionAtEdge } from "../../layers/storage/repositoryEdge.ts"
import { workMigrations } from "./migrations/index.ts"
import {
  type StateKvEntry,
  type StateKvScope,
  type WorkArtifact,
  WorkArtifactKind,
  type WorkDecision,
  WorkFingerprint,
  type WorkItem,
  WorkItemKind,
  WorkItemStatus,
  type WorkLink,
  WorkLinkKind,
  type WorkScope,
  type WorkSignal,
  WorkSignalStatus,
  WorkSignalTriggerKind
} from "./schema.ts"

const Json = Schema.fromJsonString(Schema.Unknown)
const JsonStrings = Schema.fromJsonString(Schema.Array(Schema.String))
const ScopeColumns = { tenant_id: Schema.String, agent_id: Schema.String, workspace_id: Schema.String }

/** A stored work item. */
export const WorkItemRow = Schema.Struct({
  work_item_id: Schema.String,
  ...ScopeColumns,
  kind: WorkItemKind,
  title: Schema.String,
  status: WorkItemStatus,
  priority: Schema.Int,
  created_at: TimestampColumn,
  created_from_session_key: Schema.String,
  last_active_at: TimestampColumn,
  acceptance: Schema.NullOr(Json),
  fingerprint: Schema.NullOr(Schema.fromJsonString(WorkFingerprint)),
  budgets: Schema.NullOr(Json),
  parent_work_item_id: Schema.NullOr(Schema.String),
  updated_at: Schema.NullOr(TimestampColumn)
})
export type WorkItemRow = typeof WorkItemRow.Type

/** A stored link. */
export const WorkLinkRow = Schema.Struct({
  work_item_id: Schema.String,
  linked_work_item_id: Schema.String,
  kind: WorkLinkKind,
  ...ScopeColumns,
  created_at: TimestampColumn
})

/** A stored work artifact (`refs` is JSON text). */
export const WorkArtifactRow = Schema.Struct({
  artifact_id: Schema.String,
  ...ScopeColumns,
  work_item_id: Schema.NullOr(Schema.String),
  kind: WorkArtifactKind,
  title: Schema.String,
  body_md: Schema.NullOr(Schema.String),
  refs: JsonStrings,
  created_at: TimestampColumn
})
export type WorkArtifactRow = typeof WorkArtifactRow.Type

/** A stored decision record. */
export const WorkDecisionRow = Schema.Struct({
  decision_id: Schema.String,
  ...ScopeColumns,
  work_item_id: Schema.NullOr(Schema.String),
  question: Schema.String,
  chosen: Schema.String,
  alternatives: JsonStrings,
  rationale_md: Schema.String,
  input_artifact_ids: JsonStrings,
  created_at: TimestampColumn
})
export type WorkDecisionRow = typeof WorkDecisionRow.Type

/** A stored signal; `due_at` is an active time signal's moment. */
export const WorkSignalRow = Schema.Struct({
  signal_id: Schema.String,
  ...ScopeColumns,
  work_item_id: Schema.NullOr(Schema.String),
  trigger_kind: WorkSignalTriggerKind,
  trigger_spec_json: Json,
  payload_json: Schema.NullOr(Json),
  status: WorkSignalStatus,
  due_at: Schema.NullOr(TimestampColumn),
  created_at: TimestampColumn,
  updated_at: Schema.NullOr(TimestampColumn),
  fired_at: Schema.NullOr(TimestampColumn)
})
export type WorkSignalRow = typeof WorkSignalRow.Type

/** A stored state_kv entry (`work_item_id` is `''` for the agent scope). */
export const WorkStateKvRow = Schema.Struct({
  ...ScopeColumns,
  scope_kind: Schema.Literals(["agent", "work_item"]),
  work_item_id: Schema.String,
  key: Schema.String,
  value_json: Json,
  updated_at: TimestampColumn
})
export type WorkStateKvRow = typeof WorkStateKvRow.Type

/** The fields of a row that are set (a NULL column is an absent field). */
const present = <A extends object>(fields: A): Partial<A> =>
  Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== null && v !== undefined)) as Partial<A>

const toItem = (row: WorkItemRow): WorkItem => present(row) as WorkItem
const toLink = (row: typeof WorkLinkRow.Type): WorkLink => row
const toArtifact = (row: WorkArtifactRow): WorkArtifact => present(row) as WorkArtifact
const toDecision = (row: WorkDecisionRow): WorkDecision => present(row) as WorkDecision
const toSignal = ({ due_at: _, ...row }: WorkSignalRow): WorkSignal => present(row) as WorkSignal
const toEntry = (row: WorkStateKvRow): StateKvEntry => ({
  tenant_id: row.tenant_id,
  agent_id: row.agent_id,
  workspace_id: row.workspace_id,
  scope: row.scope_kind === "agent" ? { kind: "agent" } : { kind: "work_item", work_item_id: row.work_item_id },
  key: row.key,
  value_json: row.value_json,
  updated_at: row.updated_at
})

/** A keyset position: after (`createdAt`, `id`). */
export interface After {
  readonly createdAt: string
  readonly id: string
}

/** Filters of an item listing. */
export interface WorkItemFilter {
  readonly statuses?: ReadonlyArray<WorkItemStatus> | undefined
  readonly kinds?: ReadonlyArray<typeof WorkItemKind.Type> | undefined
  readonly after?: After | undefined
  readonly limit: number
}

/** What a status move writes; `wipLimit` when the target is `doing`. */
export interface WorkMove {
  readonly from: WorkItemStatus
  readonly to: WorkItemStatus
  readonly at: string
  readonly wipLimit?: number | undefined
}

/** Repository of the work board over `SqlClient` (SQLite and PostgreSQL alike). */
export class WorkRepo extends Context.Service<WorkRepo, {
  /** Stores a new item. */
  readonly insertItem: (row: WorkItemRow) => Effect.Effect<WorkItem>
  /** The item with `id` in any scope, or `undefined`. */
  readonly getItem: (id: string) => Effect.Effect<WorkItem | undefined>
  /** Items of `scope` matching `filter`, by `created_at` then id. */
  readonly listItems: (scope: WorkScope, filter: WorkItemFilter) => Effect.Effect<ReadonlyArray<WorkItem>>
  /** Writes `fields` (and `updated_at`, `last_active_at`) to item `id`; the item after. */
  readonly updateItem: (id: string, fields: Partial<WorkItemRow>, at: string) => Effect.Effect<WorkItem | undefined>
  /**
   * Moves item `id` from `move.from` to `move.to` in one conditional write
   * (with `wipLimit`: only while fewer than that many items of its scope are
   * in `doing`); the item after, or `undefined` when the write did not apply.
   */
  readonly moveItem: (id: string, scope: WorkScope, move: WorkMove) => Effect.Effect<WorkItem | undefined>
  /** How many items of `scope` are in `doing`. */
  readonly countDoing: (scope: WorkScope) => Effect.Effect<number>
  /** Inside a transaction: serialises writers of `scope` (PostgreSQL advisory lock; SQLite already has one writer). */
  readonly lockScope: (scope: WorkScope) => Effect.Effect<void>
  /** Stores a link; `false` when it existed already. */
  readonly insertLink: (link: WorkLink) => Effect.Effect<boolean>
  /** Links from or to item `id`. */
  readonly listLinks: (id: string) => Effect.Effect<ReadonlyArray<WorkLink>>
  /** Every `depends_on` edge of `scope` (`from` depends on `to`). */
  readonly dependsOnEdges: (scope: WorkScope) => Effect.Effect<ReadonlyArray<{ readonly from: string; readonly to: string }>>
  readonly insertArtifact: (row: WorkArtifactRow) => Effect.Effect<WorkArtifact>
  readonly getArtifact: (id: string) => Effect.Effect<WorkArtifact | undefined>
  readonly listArtifacts: (scope: WorkScope, workItemId: string | undefined, after: After | undefined, limit: number) => Effect.Effect<ReadonlyArray<WorkArtifact>>
  readonly insertDecision: (row: WorkDecisionRow) => Effect.Effect<WorkDecision>
  readonly getDecision: (id: string) => Effect.Effect<WorkDecision | undefined>
  readonly listDecisions: (scope: WorkScope, workItemId: string | undefined) => Effect.Effect<ReadonlyArray<WorkDecision>>
  readonly insertSignal: (row: WorkSignalRow) => Effect.Effect<WorkSignal>
  /** The signal and its `due_at`. */
  readonly getSignal: (id: string) => Effect.Effect<WorkSignalRow | undefined>
  readonly listSignals: (scope: WorkScope, workItemId: string | undefined) => Effect.Effect<ReadonlyArray<WorkSignal>>
  /** Writes `fields` to signal `id` while its status is still `expected`; the signal after, or `undefined`. */
  readonly updateSignal: (id: string, expected: WorkSignalStatus, fields: Partial<WorkSignalRow>) => Effect.Effect<WorkSignal | undefined>
  /** Moves every active time signal due at `now` to `fired`; returns them. */
  readonly fireDue: (now: string) => Effect.Effect<ReadonlyArray<WorkSignal>>
  /** The earliest `due_at` of an active time signal, if any. */
  readonly nextDue: Effect.Effect<string | undefined>
  readonly getKv: (scope: WorkScope, kv: StateKvScope, key: string) => Effect.Effect<StateKvEntry | undefined>
  /** Entries of a kv scope whose key starts with `prefix`, by key. */
  readonly listKv: (scope: WorkScope, kv: StateKvScope, prefix: string) => Effect.Effect<ReadonlyArray<StateKvEntry>>
  /** Inserts or replaces one entry. */
  readonly setKv: (row: WorkStateKvRow) => Effect.Effect<StateKvEntry>
  /** Runs `effect` in one transaction. */
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}>()("svc-gateway/work/WorkRepo") {
  /** The SQL implementation; needs a `SqlClient` and applies the work migrations first. */
  static readonly layer = Layer.effect(
    WorkRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* migrate("work", workMigrations)

      const items = findRows(WorkItemRow)
      const links = findRows(WorkLinkRow)
      const artifacts = findRows(WorkArtifactRow)
      const decisions = findRows(WorkDecisionRow)
      const signals = findRows(WorkSignalRow)
      const kvs = findRows(WorkStateKvRow)
      const encode = <S extends Schema.Top>(schema: S) => Schema.encodeSync(schema as any) as (u: unknown) => any

      const encodeItem = encode(WorkItemRow)
      const encodeArtifact = encode(WorkArtifactRow)
      const encodeDecision = encode(WorkDecisionRow)
      const encodeSignal = encode(WorkSignalRow)
      const encodeKv = encode(WorkStateKvRow)
      /** Encodes only the given fields of a row (for partial updates). */
      const encodeFields = (schema: Schema.Struct<any>, fields: Record<string, unknown>) =>
        Object.fromEntries(Object.entries(fields).map(([k, v]) =>
          [k, v === null ? null : Schema.encodeSync(schema.fields[k] as any)(v)]
        ))

      const inScope = (scope: WorkScope) =>
        sql`tenant_id = ${scope.tenant_id} AND agent_id = ${scope.agent_id} AND workspace_id = ${scope.workspace_id}`
      const afterClause = (after: After | undefined, idColumn: string) =>
        after === undefined ? [] : [sql`(created_at > ${after.createdAt} OR (created_at = ${after.createdAt} AND ${sql(idColumn)} > ${after.id}))`]
      const first = <A>(rows: ReadonlyArray<A>) => rows[0]

      const lockScope = (scope: WorkScope) =>
        sql.onDialectOrElse({
          pg: () => Effect.asVoid(sql`SELECT pg_advisory_xact_lock(hashtext(${`work:${JSON.stringify([scope.tenant_id, scope.agent_id, scope.workspace_id])}`}))`),
          orElse: () => Effect.void
        })

      const moveItem = (id: string, scope: WorkScope, move: WorkMove) => {
        const wip = move.wipLimit === undefined ? sql`` : sql`AND (SELECT COUNT(*) FROM work_items WHERE ${inScope(scope)} AND status = 'doing') < ${move.wipLimit}`
        const write = Effect.map(
          items(sql`UPDATE work_items SET status = ${move.to}, updated_at = ${move.at}, last_active_at = ${move.at}
            WHERE work_item_id = ${id} AND status = ${move.from} ${wip} RETURNING *`),
          (rows) => rows.length === 0 ? undefined : toItem(rows[0])
        )
        return move.wipLimit === undefined ? write : sql.withTransaction(Effect.andThen(lockScope(scope), write))
      }

      return WorkRepo.of(repositoryEdge("WorkRepo", {
        insertItem: (row) => Effect.map(items(sql`INSERT INTO work_items ${sql.insert(encodeItem(row))} RETURNING *`), (rows) => toItem(rows[0])),
        getItem: (id) => Effect.map(items(sql`SELECT * FROM work_items WHERE work_item_id = ${id}`), (rows) => rows.length === 0 ? undefined : toItem(rows[0])),
        listItems: (scope, filter) => {
          const clauses: Array<Statement.Fragment> = [inScope(scope), ...afterClause(filter.after, "work_item_id")]
          if (filter.statuses !== undefined && filter.statuses.length > 0) clauses.push(sql.in("status", filter.statuses))
          if (filter.kinds !== undefined && filter.kinds.length > 0) clauses.push(sql.in("kind", filter.kinds))
          return Effect.map(items(sql`SELECT * FROM work_items WHERE ${sql.and(clauses)} ORDER BY created_at, work_item_id LIMIT ${filter.limit}`), (rows) => rows.map(toItem))
        },
        updateItem: (id, fields, at) =>
          Effect.map(
            items(sql`UPDATE work_items SET ${sql.update({ ...encodeFields(WorkItemRow, fields), updated_at: at, last_active_at: at })} WHERE work_item_id = ${id} RETURNING *`),
            (rows) => rows.length === 0 ? undefined : toItem(rows[0])
          ),
        moveItem,
        countDoing: (scope) =>
          Effect.map(
            findRows(Schema.Struct({ n: Schema.Unknown }))(sql`SELECT COUNT(*) AS n FROM work_items WHERE ${inScope(scope)} AND status = 'doing'`),
            (rows) => Number(rows[0]?.n ?? 0) // a bigint or a string on PostgreSQL
          ),
        lockScope,
        insertLink: (link) =>
          Effect.map(
            links(sql`INSERT INTO work_links ${sql.insert({ ...link })} ON CONFLICT (work_item_id, linked_work_item_id, kind) DO NOTHING RETURNING *`),
            (rows) => rows.length > 0
          ),
        listLinks: (id) =>
          Effect.map(links(sql`SELECT * FROM work_links WHERE work_item_id = ${id} OR linked_work_item_id = ${id} ORDER BY created_at, work_item_id, linked_work_item_id`), (rows) => rows.map(toLink)),
        dependsOnEdges: (scope) =>
          Effect.map(links(sql`SELECT * FROM work_links WHERE ${inScope(scope)} AND kind = 'depends_on'`), (rows) =>
            rows.map((r) => ({ from: r.work_item_id, to: r.linked_work_item_id }))),
        insertArtifact: (row) => Effect.map(artifacts(sql`INSERT INTO work_artifacts ${sql.insert(encodeArtifact(row))} RETURNING *`), (rows) => toArtifact(rows[0])),
        getArtifact: (id) => Effect.map(artifacts(sql`SELECT * FROM work_artifacts WHERE artifact_id = ${id}`), (rows) => rows.length === 0 ? undefined : toArtifact(rows[0])),
        listArtifacts: (scope, workItemId, after, limit) => {
          const clauses: Array<Statement.Fragment> = [inScope(scope), ...afterClause(after, "artifact_id")]
          if (workItemId !== undefined) clauses.push(sql`work_item_id = ${workItemId}`)
          return Effect.map(artifacts(sql`SELECT * FROM work_artifacts WHERE ${sql.and(clauses)} ORDER BY created_at, artifact_id LIMIT ${limit}`), (rows) => rows.map(toArtifact))
        },
        insertDecision: (row) => Effect.map(decisions(sql`INSERT INTO work_decisions ${sql.insert(encodeDecision(row))} RETURNING *`), (rows) => toDecision(rows[0])),
        getDecision: (id) => Effect.map(decisions(sql`SELECT * FROM work_decisions WHERE decision_id = ${id}`), (rows) => rows.length === 0 ? undefined : toDecision(rows[0])),
        listDecisions: (scope, workItemId) =>
          Effect.map(
            decisions(sql`SELECT * FROM work_decisions WHERE ${inScope(scope)} ${workItemId === undefined ? sql`` : sql`AND work_item_id = ${workItemId}`} ORDER BY created_at, decision_id`),
            (rows) => rows.map(toDecision)
          ),
        insertSignal: (row) => Effect.map(signals(sql`INSERT INTO work_signals ${sql.insert(encodeSignal(row))} RETURNING *`), (rows) => toSignal(rows[0])),
        getSignal: (id) => Effect.map(signals(sql`SELECT * FROM work_signals WHERE signal_id = ${id}`), first),
        listSignals: (scope, workItemId) =>
          Effect.map(
            signals(sql`SELECT * FROM work_signals WHERE ${inScope(scope)} ${workItemId === undefined ? sql`` : sql`AND work_item_id = ${workItemId}`} ORDER BY created_at, signal_id`),
            (rows) => rows.map(toSignal)
          ),
        updateSignal: (id, expected, fields) =>
          Effect.map(
            signals(sql`UPDATE work_signals SET ${sql.update(encodeFields(WorkSignalRow, fields))} WHERE signal_id = ${id} AND status = ${expected} RETURNING *`),
            (rows) => rows.length === 0 ? undefined : toSignal(rows[0])
          ),
        fireDue: (now) =>
          Effect.map(
            signals(sql`UPDATE work_signals SET status = 'fired', fired_at = due_at, updated_at = ${now}, due_at = NULL
              WHERE status = 'active' AND trigger_kind = 'time' AND due_at <= ${now} RETURNING *`),
            (rows) => rows.map(toSignal).sort((a, b) => (a.fired_at ?? "").localeCompare(b.fired_at ?? "") || a.signal_id.localeCompare(b.signal_id))
          ),
        nextDue: Effect.map(
          findRows(Schema.Struct({ next: Schema.NullOr(Schema.String) }))(sql`SELECT MIN(due_at) AS next FROM work_signals WHERE status = 'active' AND trigger_kind = 'time'`),
          (rows) => rows[0]?.next ?? undefined
        ),
        getKv: (scope, kv, key) =>
          Effect.map(
            kvs(sql`SELECT * FROM work_state_kv WHERE ${inScope(scope)} AND scope_kind = ${kv.kind} AND work_item_id = ${kvItem(kv)} AND key = ${key}`),
            (rows) => rows.length === 0 ? undefined : toEntry(rows[0])
          ),
        listKv: (scope, kv, prefix) =>
          Effect.map(
            kvs(sql`SELECT * FROM work_state_kv WHERE ${inScope(scope)} AND scope_kind = ${kv.kind} AND work_item_id = ${kvItem(kv)}
              AND substr(key, 1, ${prefix.length}) = ${prefix} ORDER BY key`),
            (rows) => rows.map(toEntry)
          ),
        setKv: (row) => {
          const encoded = encodeKv(row)
          return Effect.map(
            kvs(sql`INSERT INTO work_state_kv ${sql.insert(encoded)}
              ON CONFLICT (tenant_id, agent_id, workspace_id, scope_kind, work_item_id, key)
              DO UPDATE SET value_json = ${encoded.value_json}, updated_at = ${encoded.updated_at} RETURNING *`),
            (rows) => toEntry(rows[0])
          )
        },
        transaction: transactionAtEdge(sql.withTransaction)
      }))
    })
  )
}

/** The `work_item_id` column of a kv scope. */
export const kvItem = (kv: StateKvScope): string => kv.kind === "agent" ? "" : kv.work_item_id
