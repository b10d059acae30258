/**
 * The snapshot set derived from the subsystems' table declarations (the
 * root's list of descriptors: src/app/tables.ts; services/snapshots/tableSet.ts;
 * layers/storage/table.ts, columns.ts): the same tables, order, primary keys,
 * owners and column kinds as the hand-written registry it replaced (pinned below once, so a row
 * schema change that alters a column's kind or order is caught); every table
 * the declared migrations create is in the set or declared excluded; the
 * derivation rules and the declaration checks.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import {
  columnKindOf,
  HashedTextColumn,
  JsonTextColumn,
  serialColumn,
  TimestampColumn,
  withColumnKind
} from "../../../layers/storage/columns.ts"
import { migrate } from "../../../layers/storage/migrations.ts"
import { excludedTable, table, type TableOwner } from "../../../layers/storage/table.ts"
import { Subsystems } from "../../../src/app/subsystems.ts"
import { isExcludedTable, SNAPSHOT_TABLES } from "../../../src/app/tables.ts"
import { SNAPSHOT_V2_ORDER, tableSet } from "../../../services/snapshots/tableSet.ts"

const TABLE_DECLARATIONS = Subsystems.map((s) => s.tables)
import { testDatabases } from "../../support/databases.ts"

/**
 * The registry as it was hand-written (name, primary key, owner, columns as
 * `name` or `name:kind`, written at start), in import order.
 */
const PINNED: ReadonlyArray<readonly [string, ReadonlyArray<string>, string, string, true?]> = [
  ["policy_snapshots", ["policy_snapshot_id"], "policy_bundle", "policy_snapshot_id sha256 bundle_json:json created_at:time", true],
  ["plans", ["plan_id"], "planner", "plan_id request_id status request_json:json decision_json:json response_json:json created_at:time execution_state run_id"],
  ["planner_events", ["id"], "planner", "id:serial replay_id plan_id step_index:int occurred_at:time action:json created_at:time prev_hash event_hash"],
  ["audit_chains", ["plan_id"], "audit", "plan_id last_step_index:int last_hash"],
  ["audit_events", ["id"], "audit", "id:serial plan_id step_index:int occurred_at action action_sha256 prev_hash event_hash"],
  ["approvals", ["id"], "approvals", "id:serial kind status plan_id step_index:int prompt context:json created_at:time expires_at:time resolved_at:time resolved_by:json reason scope_key scope_lane scope_run_id scope_step_index:int"],
  ["policy_overrides", ["policy_override_id"], "policy_bundle", "policy_override_id status created_at:time created_by:json agent_id workspace_id tool_id pattern created_from_approval_id:int created_from_policy_snapshot_id expires_at:time revoked_at:time revoked_by:json revoked_reason"],
  ["routing_configs", ["revision"], "routing", "revision:serial config_json:json created_at:time created_by_json:json reason reverted_from_revision:int"],
  ["secret_handles", ["handle_id"], "secrets", "handle_id agent_id provider scope version:int created_at:time revoked_at:time replaced_by"],
  ["secret_versions", ["handle_id", "version"], "secrets_db", "handle_id version:int key_id iv tag ciphertext created_at:time"],
  ["secret_resolutions", ["id"], "secrets", "id:serial handle_id purpose outcome resolved_at:time"],
  ["auth_profiles", ["auth_profile_id"], "auth_profiles", "auth_profile_id agent_id provider type api_key_handle access_token_handle refresh_token_handle labels:json status created_at:time updated_at:time disabled_reason"],
  ["session_provider_pins", ["agent_id", "session_id", "provider"], "auth_profiles", "agent_id session_id provider auth_profile_id pinned_at:time"],
  ["device_tokens", ["token_id"], "auth", "token_id token_digest device_id role scopes:json issued_at:time expires_at:time revoked_at:time"],
  ["node_pairings", ["pairing_id"], "pairing", "pairing_id:serial node_id status trust_level label capabilities:json metadata:json capability_allowlist:json requested_at:time last_seen_at:time resolved_at:time resolved_by:json reason token_digest"],
  ["workflow_jobs", ["job_id"], "workflow_runs", "job_id key lane status trigger_kind trigger:json latest_run_id created_at:time updated_at:time"],
  ["workflow_runs", ["seq"], "workflow_runs", "seq:serial run_id job_id key lane status attempt:int plan_id request_id steps_count:int created_at:time updated_at:time started_at:time finished_at:time paused_reason paused_detail policy_snapshot_id budgets:json budget_overridden_at:time"],
  ["workflow_steps", ["step_id"], "workflow_runs", "step_id run_id step_index:int status action:json created_at:time updated_at:time approval_id:int"],
  ["workflow_attempts", ["attempt_id"], "workflow_runs", "attempt_id step_id run_id attempt:int status started_at:time finished_at:time result:json error:json postcondition_report:json artifacts:json cost:json policy_decision:json policy_applied_override_ids:json"],
  ["workflow_resume_tokens", ["digest"], "workflow_runs", "digest run_id step_index:int approval_id:int created_at:time expires_at:time used_at:time revoked_at:time pause_name"],
  ["watchers", ["id"], "watchers", "id:serial plan_id trigger_type trigger_config:json active:bool deleted_at:time created_at:time updated_at:time"],
  ["watcher_firings", ["firing_id"], "watchers", "firing_id watcher_id:int trigger_type dedupe_key slot:int nonce_digest nonce_key source_run_id status run_id error created_at:time updated_at:time"],
  ["canvas_artifacts", ["canvas_id"], "canvas", "canvas_id plan_id title content_type html_content metadata:json size_bytes:int created_at:time"],
  ["memory_items", ["memory_item_id"], "memory", "memory_item_id agent_id kind sensitivity source_kind fact_key tags:json provenance:json data:json search_title search_body search_tags created_at:time updated_at:time"],
  ["memory_tombstones", ["memory_item_id"], "memory", "memory_item_id agent_id deleted_at:time deleted_by reason"],
  // Subsystems added after the svc.snapshot.v2 format, in the subsystem list's order.
  ["work_items", ["work_item_id"], "work", "work_item_id tenant_id agent_id workspace_id kind title status priority:int created_at:time created_from_session_key last_active_at:time acceptance:json fingerprint:json budgets:json parent_work_item_id updated_at:time"],
  ["work_links", ["work_item_id", "linked_work_item_id", "kind"], "work", "work_item_id linked_work_item_id kind tenant_id agent_id workspace_id created_at:time"],
  ["work_artifacts", ["artifact_id"], "work", "artifact_id tenant_id agent_id workspace_id work_item_id kind title body_md refs:json created_at:time"],
  ["work_decisions", ["decision_id"], "work", "decision_id tenant_id agent_id workspace_id work_item_id question chosen alternatives:json rationale_md input_artifact_ids:json created_at:time"],
  ["work_signals", ["signal_id"], "work", "signal_id tenant_id agent_id workspace_id work_item_id trigger_kind trigger_spec_json:json payload_json:json status due_at:time created_at:time updated_at:time fired_at:time"],
  ["work_state_kv", ["tenant_id", "agent_id", "workspace_id", "scope_kind", "work_item_id", "key"], "work", "tenant_id agent_id workspace_id scope_kind work_item_id key value_json:json updated_at:time"],
  ["artifacts", ["artifact_id"], "artifacts", "artifact_id kind created_at:time mime_type size_bytes:int sha256 labels:json metadata:json sensitivity workspace_id agent_id run_id step_id attempt_id policy_snapshot_id deleted_at:time"],
  ["agent_sessions", ["session_id"], "agent", "session_id agent_id channel thread_id workspace_id model summary created_at:time last_turn_at:time"],
  ["agent_messages", ["session_id", "seq"], "agent", "session_id seq:int role message chars:int created_at:time"],
  ["agent_context_reports", ["context_report_id"], "agent", "context_report_id session_id agent_id run_id model input_tokens:int output_tokens:int total_tokens:int usd_micros:int report:json generated_at:time"],
  ["agent_session_settings", ["session_id"], "agent", "session_id queue_mode send_policy updated_at:time"],
  ["agent_tool_calls", ["approval_id"], "agent", "approval_id:int session_id agent_id tool tool_id arguments:json match_target status outcome created_at:time consumed_at:time"],
  ["agent_subagents", ["subagent_id"], "agent", "subagent_id tenant_id agent_id workspace_id work_item_id work_item_task_id execution_profile session_key lane status created_at:time last_heartbeat_at:time updated_at:time closed_at:time"],
  ["agent_subagent_messages", ["message_id"], "agent", "message_id:serial subagent_id content status attempts:int reply error created_at:time started_at:time finished_at:time"],
  ["messenger_inbox", ["inbox_id"], "messenger", "inbox_id:serial account chat_id message_id agent_id session_key text envelope:json status attempts:int duplicates:int reply error received_at:time queued_at:time started_at:time finished_at:time"],
  ["messenger_deliveries", ["delivery_id"], "messenger", "delivery_id:serial account chat_id kind status attempts:int inbox_id:int approval_id:int platform_message_id error created_at:time"],
  ["messenger_approval_prompts", ["approval_id"], "messenger", "approval_id:int account chat_id nonce platform_message_id created_at:time used_at:time used_by"]
]

/** The registry's short names of the kinds. */
const SHORT = { text: "", integer: "int", serial: "serial", boolean: "bool", json: "json", timestamp: "time" } as const

const owner: TableOwner = { subsystem: "t", migrations: [] }
const kindOf = (schema: Schema.Top) => columnKindOf(schema.ast)

describe("the derived snapshot set", () => {
  it("has the tables, order, primary keys, owners, columns and kinds of the registry it replaced", () => {
    const derived = SNAPSHOT_TABLES.map((t) => [
      t.name,
      t.primaryKey,
      t.owner.subsystem,
      t.columns.map((c) => (SHORT[c.kind] === "" ? c.name : `${c.name}:${SHORT[c.kind]}`)).join(" "),
      ...(t.writtenAtStart ? [true] : [])
    ])
    expect(derived).toEqual(PINNED)
  })

  it("names each table's generated id as its serial column", () => {
    expect(SNAPSHOT_TABLES.filter((t) => t.serial !== undefined).map((t) => `${t.name}.${t.serial}`)).toEqual([
      "planner_events.id",
      "audit_events.id",
      "approvals.id",
      "routing_configs.revision",
      "secret_resolutions.id",
      "node_pairings.pairing_id",
      "workflow_runs.seq",
      "watchers.id",
      "agent_subagent_messages.message_id",
      "messenger_inbox.inbox_id",
      "messenger_deliveries.delivery_id"
    ])
  })

  it("declares the tables it leaves out, each with its reason", () => {
    const excluded = TABLE_DECLARATIONS.flat().filter((d) => !d.snapshot)
    expect(excluded.map((d) => d.name).sort()).toEqual(
      ["backplane_*", "cluster_*", "gateway_master_key", "memory_items_fts*", "memory_vector*", "models_dev_cache", "models_dev_refresh_leases", "node_attempts", "oauth_pending", "rate_limit_windows", "sqlite_sequence", "svc_migrations_*", "workflow_step_inputs"]
    )
    for (const d of excluded) expect(d.snapshot === false && d.reason.length > 20).toBe(true)
    expect(["backplane_outbox", "cluster_messages", "svc_migrations_approvals", "oauth_pending", "workflow_step_inputs", "memory_vectors", "memory_vector_space", "memory_vectors_idx_shadow"].every(isExcludedTable)).toBe(true)
    expect(isExcludedTable("approvals")).toBe(false)
  })
})

for (const db of testDatabases) {
  describe(`the declared migrations on ${db.name}`, () => {
    it.effect("create only tables the snapshot set carries or a declaration excludes, and every table it carries", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const owners = new Map(TABLE_DECLARATIONS.flat().flatMap((d) => (d.owner === undefined ? [] : [[d.owner.subsystem, d.owner]])))
        for (const o of owners.values()) yield* migrate(o.subsystem, o.migrations)
        const created = (db.kind === "sqlite"
          ? yield* sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table'`
          : yield* sql<{ name: string }>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()`)
          .map((r) => r.name)
        const carried = new Set(SNAPSHOT_TABLES.map((t) => t.name))
        expect(created.filter((t) => !carried.has(t) && !isExcludedTable(t))).toEqual([])
        expect([...carried].filter((t) => !created.includes(t))).toEqual([])
      }).pipe(Effect.provide(db.make())))
  })
}

describe("column kinds derived from field schemas", () => {
  it("reads text, integers, booleans and parsed JSON from the schema alone; NullOr takes its member's kind", () => {
    expect(kindOf(Schema.String)).toBe("text")
    expect(kindOf(Schema.Literals(["a", "b"]))).toBe("text")
    expect(kindOf(Schema.NullOr(Schema.String))).toBe("text")
    expect(kindOf(Schema.Int)).toBe("integer")
    expect(kindOf(Schema.Union([Schema.Number, Schema.BigInt]))).toBe("integer")
    expect(kindOf(Schema.NullOr(Schema.Int))).toBe("integer")
    expect(kindOf(Schema.Boolean)).toBe("boolean")
    expect(kindOf(Schema.Union([Schema.Boolean, Schema.Number]))).toBe("boolean")
    expect(kindOf(Schema.fromJsonString(Schema.Unknown))).toBe("json")
    expect(kindOf(Schema.NullOr(Schema.fromJsonString(Schema.Struct({ a: Schema.String }))))).toBe("json")
    expect(kindOf(Schema.fromJsonString(Schema.Array(Schema.String)))).toBe("json")
  })

  it("reads timestamps, unparsed JSON text, generated ids and hashed text from the column schemas", () => {
    expect(kindOf(TimestampColumn)).toBe("timestamp")
    expect(kindOf(Schema.NullOr(TimestampColumn))).toBe("timestamp")
    expect(kindOf(JsonTextColumn)).toBe("json")
    expect(kindOf(serialColumn(Schema.Int))).toBe("serial")
    expect(kindOf(serialColumn(Schema.Union([Schema.Number, Schema.BigInt])))).toBe("serial")
    expect(kindOf(HashedTextColumn)).toBe("text")
    expect(kindOf(withColumnKind(Schema.Unknown, "json"))).toBe("json")
  })

  it("column schemas decode exactly as the schema they annotate", () => {
    expect(Schema.decodeUnknownSync(TimestampColumn)("2026-01-02T03:04:05.006Z")).toBe("2026-01-02T03:04:05.006Z")
    expect(() => Schema.decodeUnknownSync(TimestampColumn)(5)).toThrow()
    expect(() => Schema.decodeUnknownSync(serialColumn(Schema.Int))(1.5)).toThrow()
    expect(Schema.decodeUnknownSync(serialColumn(Schema.Int))(7)).toBe(7)
  })

  it("says nothing where the schema is ambiguous", () => {
    expect(kindOf(Schema.Unknown)).toBeUndefined()
    expect(kindOf(Schema.Union([Schema.String, Schema.Number]))).toBeUndefined()
    expect(kindOf(Schema.NumberFromString)).toBeUndefined()
  })
})

describe("table declarations", () => {
  it("take the columns from the row schema, in field order", () => {
    const t = table({ name: "t", primaryKey: ["id"], row: Schema.Struct({ id: serialColumn(Schema.Int), at: TimestampColumn, v: Schema.String }), owner })
    expect(t).toMatchObject({
      snapshot: true,
      columns: [{ name: "id", kind: "serial" }, { name: "at", kind: "timestamp" }, { name: "v", kind: "text" }],
      serial: "id",
      writtenAtStart: false,
      references: []
    })
  })

  it("refuse a field whose kind the schema does not say, two serials, a bad primary key or name", () => {
    const row = <F extends Schema.Struct.Fields>(fields: F) => Schema.Struct(fields)
    expect(() => table({ name: "t", primaryKey: ["a"], row: row({ a: Schema.String, b: Schema.Unknown }), owner })).toThrow(
      "table declaration t: the row schema does not say the kind of column 'b'"
    )
    expect(() => table({ name: "t", primaryKey: ["a"], row: row({ a: serialColumn(Schema.Int), b: serialColumn(Schema.Int) }), owner }))
      .toThrow("more than one serial column")
    expect(() => table({ name: "t", primaryKey: ["c"], row: row({ a: Schema.String }), owner })).toThrow("the primary key")
    expect(() => table({ name: "T-1", primaryKey: ["a"], row: row({ a: Schema.String }), owner })).toThrow("lowercase identifier")
  })
})

describe("the import order", () => {
  const t = (name: string, references: ReadonlyArray<string> = []) =>
    table({ name, primaryKey: ["id"], row: Schema.Struct({ id: Schema.String }), owner, references })

  it("is the declaration order, a table moved after the tables it references", () => {
    const set = tableSet([[t("a", ["c"]), t("b")], [t("c"), t("d")], [excludedTable("x_*", "because")]])
    expect(set.tables.map((x) => x.name)).toEqual(["b", "c", "a", "d"])
    expect(set.excluded.map((x) => x.name)).toEqual(["x_*"])
  })

  it("puts the tables of the svc.snapshot.v2 format first, in the format's order, whatever the subsystem order", () => {
    const set = tableSet([[t("z"), t("plans")], [t("policy_snapshots"), t("y", ["z"])]])
    expect(set.tables.map((x) => x.name)).toEqual(["policy_snapshots", "plans", "z", "y"])
  })

  it("is the v2 order for the gateway's own tables, and a new subsystem's tables come after them, each after its references", () => {
    const v2 = SNAPSHOT_TABLES.map((x) => x.name).filter((name) => SNAPSHOT_V2_ORDER.includes(name))
    expect(v2).toEqual(SNAPSHOT_V2_ORDER)
    expect(SNAPSHOT_TABLES.map((x) => x.name).slice(0, v2.length)).toEqual(SNAPSHOT_V2_ORDER)
    // After the v2 tables: the tables of the subsystems added since (issue 24), in the subsystem list's order.
    const added = SNAPSHOT_TABLES.map((x) => x.name).slice(SNAPSHOT_V2_ORDER.length)
    expect(added).toEqual(["canvas_artifacts", "memory_items", "memory_tombstones", "work_items", "work_links", "work_artifacts", "work_decisions", "work_signals", "work_state_kv", "artifacts", "agent_sessions", "agent_messages", "agent_context_reports", "agent_session_settings", "agent_tool_calls", "agent_subagents", "agent_subagent_messages", "messenger_inbox", "messenger_deliveries", "messenger_approval_prompts"])
    const notes = [t("note_items", ["note_spaces", "plans"]), t("note_spaces")]
    const set = tableSet([...TABLE_DECLARATIONS, notes])
    expect(set.tables.map((x) => x.name)).toEqual([...SNAPSHOT_V2_ORDER, ...added, "note_spaces", "note_items"])
  })

  it("refuses a reference to a table no snapshot carries, a cycle and a name declared twice", () => {
    expect(() => tableSet([[t("a", ["x"])], [excludedTable("x", "because")]])).toThrow("table a references tables no snapshot carries: x")
    expect(() => tableSet([[t("a", ["b"]), t("b", ["a"])]])).toThrow("cycle")
    expect(() => tableSet([[t("a")], [excludedTable("a", "because")]])).toThrow("table a is declared twice")
  })
})
