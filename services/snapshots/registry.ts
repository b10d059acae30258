/**
 * The snapshot table registry (docs/operations.md "Backup and restore"): every
 * gateway table that holds state, in import order (parents before children),
 * with its primary key, the kind of each column, the migrations that create
 * it and its row schema (the one its repository reads rows with). Export
 * reads exactly these columns; import accepts exactly these tables and
 * columns, and only rows its row schema reads. Adding a table is one
 * {@link table} line.
 *
 * Not listed, on purpose:
 * - `cluster_*`: the durable workflow engine's in-flight state (replies,
 *   messages, locks of the `effect/cluster` runner). It is tied to the engine
 *   instance and shard layout of one database and is not portable; the run
 *   records (`workflow_*`) are what a snapshot carries (docs/operations.md
 *   "Runs in flight").
 * - `svc_migrations_*`: migration bookkeeping; the target applies its own
 *   migrations (the import runs them before inserting).
 * - `oauth_pending`: started OAuth authorizations live at most 10 minutes and
 *   hold a PKCE verifier; a restored one would be expired or useless.
 * - `workflow_step_inputs`: the inline credentials of unfinished runs' Http
 *   steps (their records are redacted); a snapshot never carries them
 *   (docs/workflow.md "Where inline credentials live").
 *
 * @module
 */
import type { Schema } from "effect"
import { SecretVersionRow } from "../../layers/secrets/dbProvider.ts"
import { secretsDbMigrations } from "../../layers/secrets/migrations.ts"
import type { Migration } from "../../layers/storage/migrations.ts"
import { ApprovalRow } from "../approvals/ApprovalsRepo.ts"
import { approvalsMigrations } from "../approvals/migrations/index.ts"
import { AuditChainRow, AuditEventRow } from "../audit/AuditRepo.ts"
import { PlannerEventRow } from "../audit/legacy.ts"
import { auditMigrations } from "../audit/migrations/index.ts"
import { AuthProfileRow, PinRow } from "../auth-profiles/AuthProfilesRepo.ts"
import { authProfilesMigrations } from "../auth-profiles/migrations/index.ts"
import { DeviceTokenRow } from "../auth/DeviceTokenRepo.ts"
import { authMigrations } from "../auth/migrations/index.ts"
import { pairingMigrations } from "../pairing/migrations/index.ts"
import { PairingRow } from "../pairing/PairingsRepo.ts"
import { plannerMigrations } from "../planner/migrations/index.ts"
import { PlanExecutionRow, PlanRow } from "../planner/PlansRepo.ts"
import { policyBundleMigrations } from "../policy-bundle/migrations/index.ts"
import { PolicyOverrideRow } from "../policy-bundle/PolicyOverrideRepo.ts"
import { PolicySnapshotRow } from "../policy-bundle/PolicySnapshotRepo.ts"
import { routingMigrations } from "../routing/migrations/index.ts"
import { RoutingConfigRow } from "../routing/RoutingConfigRepo.ts"
import { secretsMigrations } from "../secrets/migrations/index.ts"
import { SecretHandleRow, SecretResolutionRow } from "../secrets/SecretsRepo.ts"
import { watchersMigrations } from "../watchers/migrations/index.ts"
import { WatcherFiringRow, WatcherRow } from "../watchers/WatchersRepo.ts"
import { workflowRunsMigrations } from "../workflow/runs/migrations/index.ts"
import { AttemptRow, JobRow, ResumeTokenRow, RunRow, StepRow } from "../workflow/runs/RunsRepo.ts"

/**
 * How a column's values travel in a bundle (services/snapshots/values.ts):
 * - `text`: a JSON string;
 * - `integer`: a JSON number when it is a safe integer (|n| ≤ 2^53 − 1),
 *   else a decimal string (never a rounded number);
 * - `serial`: an `integer` the database generates (AUTOINCREMENT, identity);
 *   its counter is repaired after an import;
 * - `boolean`: `true` / `false` (stored as 1/0 on SQLite);
 * - `json`: the parsed JSON value (stored as text, or json/jsonb);
 * - `timestamp`: an ISO-8601 UTC string with milliseconds.
 * SQL NULL is JSON `null` in every kind.
 *
 * Columns a hash is taken over keep the kind `text`, so their exact bytes
 * travel (`audit_events.action`, the canonical JSON its `action_sha256` is
 * the digest of, and `audit_events.occurred_at`, part of `event_hash`).
 */
export type ColumnKind = "text" | "integer" | "serial" | "boolean" | "json" | "timestamp"

/** One column of a registered table. */
export interface SnapshotColumn {
  readonly name: string
  readonly kind: ColumnKind
}

/** The migrations that create a table: the subsystem name given to `migrate` and its migration list. */
export interface TableOwner {
  readonly subsystem: string
  readonly migrations: ReadonlyArray<Migration>
}

/**
 * A table's row schema: decodes a whole stored row as the owning repository
 * reads it (JSON columns as text, integers as numbers or bigints, booleans as
 * 1/0, timestamps as ISO text), failing where the repository would.
 */
export type RowSchema = Schema.ConstraintDecoder<unknown>

/** A registered table. */
export interface SnapshotTable {
  readonly name: string
  /** Columns of the primary key, in order: export orders rows by them. */
  readonly primaryKey: ReadonlyArray<string>
  readonly columns: ReadonlyArray<SnapshotColumn>
  /** The `serial` column, if any (at most one). */
  readonly serial: string | undefined
  readonly owner: TableOwner
  /** The row schema every imported row must pass (services/snapshots/rows.ts), so no row the gateway cannot read goes in. */
  readonly row: RowSchema
  /**
   * The gateway writes rows into this table by itself when it starts
   * (`policy_snapshots`: the effective bundle's snapshot). An import into a
   * gateway whose every other registered table is empty replaces them;
   * otherwise the table must be empty like any other.
   */
  readonly writtenAtStart: boolean
}

const KINDS: Readonly<Record<string, ColumnKind>> = {
  "": "text",
  int: "integer",
  serial: "serial",
  bool: "boolean",
  json: "json",
  time: "timestamp"
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/

/**
 * A registry entry. `columns` lists every column as `name` (text) or
 * `name:kind` with kind `int`, `serial`, `bool`, `json` or `time`,
 * separated by spaces; `row` is the repository's row schema (its fields are
 * the columns). Throws at module load on a malformed entry.
 *
 * ```ts
 * table("approvals", ["id"], "id:serial kind status created_at:time context:json", approvals, ApprovalRow)
 * ```
 */
export const table = (
  name: string,
  primaryKey: ReadonlyArray<string>,
  columns: string,
  owner: TableOwner,
  row: RowSchema,
  options: { readonly writtenAtStart?: boolean } = {}
): SnapshotTable => {
  const parsed = columns.trim().split(/\s+/).map((spec): SnapshotColumn => {
    const [column = "", kind = ""] = spec.split(":")
    const resolved = KINDS[kind]
    if (!IDENTIFIER.test(column) || resolved === undefined) throw new Error(`snapshot registry: bad column '${spec}' of ${name}`)
    return { name: column, kind: resolved }
  })
  const names = new Set(parsed.map((c) => c.name))
  const serials = parsed.filter((c) => c.kind === "serial")
  if (!IDENTIFIER.test(name) || names.size !== parsed.length || serials.length > 1 || primaryKey.length === 0 ||
    primaryKey.some((c) => !names.has(c))) {
    throw new Error(`snapshot registry: bad entry for ${name}`)
  }
  // A Struct row schema must name exactly the columns: a column it does not read would go in unchecked.
  const fields = (row as { readonly fields?: Readonly<Record<string, unknown>> }).fields
  if (fields !== undefined) {
    const keys = Object.keys(fields)
    if (keys.length !== names.size || keys.some((k) => !names.has(k))) {
      throw new Error(`snapshot registry: the row schema of ${name} has fields [${keys.join(", ")}], not its columns`)
    }
  }
  return { name, primaryKey, columns: parsed, serial: serials[0]?.name, owner, row, writtenAtStart: options.writtenAtStart === true }
}

const owner = (subsystem: string, migrations: ReadonlyArray<Migration>): TableOwner => ({ subsystem, migrations })

const approvals = owner("approvals", approvalsMigrations)
const audit = owner("audit", auditMigrations)
const auth = owner("auth", authMigrations)
const authProfiles = owner("auth_profiles", authProfilesMigrations)
const pairing = owner("pairing", pairingMigrations)
const planner = owner("planner", plannerMigrations)
const policyBundle = owner("policy_bundle", policyBundleMigrations)
const routing = owner("routing", routingMigrations)
const secrets = owner("secrets", secretsMigrations)
const secretsDb = owner("secrets_db", secretsDbMigrations)
const watchers = owner("watchers", watchersMigrations)
const workflow = owner("workflow_runs", workflowRunsMigrations)

/**
 * Every table a snapshot carries, in import order. The default export set.
 * (No foreign keys exist today; the order still puts referenced rows first:
 * plans before their approvals and runs, approvals before the overrides,
 * steps and tokens that name them, handles before versions and profiles.)
 */
export const SNAPSHOT_TABLES: ReadonlyArray<SnapshotTable> = [
  table("policy_snapshots", ["policy_snapshot_id"], "policy_snapshot_id sha256 bundle_json:json created_at:time", policyBundle, PolicySnapshotRow, { writtenAtStart: true }),
  table("plans", ["plan_id"], "plan_id request_id status request_json:json decision_json:json response_json:json created_at:time execution_state run_id", planner, PlanRow.mapFields((fields) => ({ ...fields, ...PlanExecutionRow.fields }))),
  table("planner_events", ["id"], "id:serial replay_id plan_id step_index:int occurred_at:time action:json created_at:time prev_hash event_hash", planner, PlannerEventRow),
  table("audit_chains", ["plan_id"], "plan_id last_step_index:int last_hash", audit, AuditChainRow),
  table("audit_events", ["id"], "id:serial plan_id step_index:int occurred_at action action_sha256 prev_hash event_hash", audit, AuditEventRow),
  table("approvals", ["id"], "id:serial kind status plan_id step_index:int prompt context:json created_at:time expires_at:time resolved_at:time resolved_by:json reason scope_key scope_lane scope_run_id scope_step_index:int", approvals, ApprovalRow),
  table("policy_overrides", ["policy_override_id"], "policy_override_id status created_at:time created_by:json agent_id workspace_id tool_id pattern created_from_approval_id:int created_from_policy_snapshot_id expires_at:time revoked_at:time revoked_by:json revoked_reason", policyBundle, PolicyOverrideRow),
  table("routing_configs", ["revision"], "revision:serial config_json:json created_at:time created_by_json:json reason reverted_from_revision:int", routing, RoutingConfigRow),
  table("secret_handles", ["handle_id"], "handle_id agent_id provider scope version:int created_at:time revoked_at:time replaced_by", secrets, SecretHandleRow),
  table("secret_versions", ["handle_id", "version"], "handle_id version:int key_id iv tag ciphertext created_at:time", secretsDb, SecretVersionRow),
  table("secret_resolutions", ["id"], "id:serial handle_id purpose outcome resolved_at:time", secrets, SecretResolutionRow),
  table("auth_profiles", ["auth_profile_id"], "auth_profile_id agent_id provider type api_key_handle access_token_handle refresh_token_handle labels:json status created_at:time updated_at:time disabled_reason", authProfiles, AuthProfileRow),
  table("session_provider_pins", ["agent_id", "session_id", "provider"], "agent_id session_id provider auth_profile_id pinned_at:time", authProfiles, PinRow),
  table("device_tokens", ["token_id"], "token_id token_digest device_id role scopes:json issued_at:time expires_at:time revoked_at:time", auth, DeviceTokenRow),
  table("node_pairings", ["pairing_id"], "pairing_id:serial node_id status trust_level label capabilities:json metadata:json capability_allowlist:json requested_at:time last_seen_at:time resolved_at:time resolved_by:json reason token_digest", pairing, PairingRow),
  table("workflow_jobs", ["job_id"], "job_id key lane status trigger_kind trigger:json latest_run_id created_at:time updated_at:time", workflow, JobRow),
  table("workflow_runs", ["seq"], "seq:serial run_id job_id key lane status attempt:int plan_id request_id steps_count:int created_at:time updated_at:time started_at:time finished_at:time paused_reason paused_detail policy_snapshot_id budgets:json budget_overridden_at:time", workflow, RunRow),
  table("workflow_steps", ["step_id"], "step_id run_id step_index:int status action:json created_at:time updated_at:time approval_id:int", workflow, StepRow),
  table("workflow_attempts", ["attempt_id"], "attempt_id step_id run_id attempt:int status started_at:time finished_at:time result:json error:json postcondition_report:json artifacts:json cost:json policy_decision:json policy_applied_override_ids:json", workflow, AttemptRow),
  table("workflow_resume_tokens", ["digest"], "digest run_id step_index:int approval_id:int created_at:time expires_at:time used_at:time revoked_at:time pause_name", workflow, ResumeTokenRow),
  table("watchers", ["id"], "id:serial plan_id trigger_type trigger_config:json active:bool deleted_at:time created_at:time updated_at:time", watchers, WatcherRow),
  table("watcher_firings", ["firing_id"], "firing_id watcher_id:int trigger_type dedupe_key slot:int nonce_digest nonce_key source_run_id status run_id error created_at:time updated_at:time", watchers, WatcherFiringRow)
]

const byName = new Map(SNAPSHOT_TABLES.map((t) => [t.name, t]))

/** The registered table `name`, or `undefined`. */
export const snapshotTable = (name: string): SnapshotTable | undefined => byName.get(name)

/** The import position of each table (lower first). */
export const importOrder = (name: string): number => SNAPSHOT_TABLES.findIndex((t) => t.name === name)
