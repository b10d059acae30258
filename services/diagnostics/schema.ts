/**
 * Wire shapes of the runtime diagnostics (gateway-api.md "Runtime and
 * diagnostics"; issue 14 §1; docs/operations.md "Status", "Usage"):
 * `GET /status` and `GET /usage`.
 *
 * @module
 */
import { Schema } from "effect"
import { CLUSTER_ROLES } from "../cluster/settings.ts"
import { AgentId } from "../shared/agent.ts"
import { CLI_SANDBOX_KINDS } from "../workflow/executors/sandboxCommand.ts"
import { MAX_KEY_LENGTH } from "../workflow/runs/keys.ts"

const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

/** WebSocket connections of this instance (the same figures as `GET /connections?instance=<this instance>`, summarised). */
export const StatusWs = Schema.Struct({
  connections: Count.annotate({ description: "Connections that completed the handshake." }),
  by_role: Schema.Struct({ client: Count, node: Count }),
  capability_counts: Schema.Record(Schema.String, Count).annotate({
    description: "Connections advertising each capability id."
  })
}).annotate({ identifier: "StatusWs" })

/** The effective policy bundle (the same digest and sources as `GET /policy/bundle`). */
export const StatusPolicy = Schema.Struct({
  enabled: Schema.Boolean.annotate({ description: "Policy evaluation is on (always, in this gateway)." }),
  effective_sha256: Schema.String.annotate({ description: "Lowercase hex SHA-256 of the effective bundle's canonical JSON." }),
  sources: Schema.Struct({
    deployment: Schema.String.annotate({ description: "The deployment bundle's path, or `default` for the built-in one." }),
    agent: Schema.NullOr(Schema.String).annotate({ description: "The agent bundle's path, when one is active." })
  })
}).annotate({ identifier: "StatusPolicy" })

/** Work waiting or in progress, read from the database (shared by every instance on it). */
export const StatusQueueDepth = Schema.Struct({
  runs: Schema.Struct({ queued: Count, running: Count, paused: Count }),
  approvals_pending: Count,
  watcher_firings_pending: Count.annotate({ description: "0 until the watchers subsystem is installed." })
}).annotate({ identifier: "StatusQueueDepth" })

/** Optional subsystems and whether they are switched on. */
export const StatusFeatures = Schema.Struct({
  engine_api: Schema.Boolean.annotate({ description: "The /workflow/* HTTP routes (SVC_ENGINE_API_ENABLED=1)." }),
  automation: Schema.Boolean.annotate({ description: "Watchers and scheduled automation." }),
  cli: Schema.Boolean.annotate({
    description: "CLI workflow steps run: SVC_CLI_ENABLED=1 and a sandbox works (or SVC_CLI_UNSANDBOXED=1)."
  }),
  cli_sandbox: Schema.Literals(CLI_SANDBOX_KINDS).annotate({
    description:
      "Where CLI steps run, chosen at start: bwrap or unshare (a sandbox hiding the gateway's processes, SVC_HOME and home), unsandboxed (none works, SVC_CLI_UNSANDBOXED=1), unavailable (none works: CLI steps fail with sandbox_unavailable), disabled (SVC_CLI_ENABLED is not 1)."
  }),
  agent: Schema.Boolean.annotate({ description: "The built-in agent runtime (not part of this build)." })
}).annotate({ identifier: "StatusFeatures" })

/** One live instance of the gateway (this one included): `GET /status` `peers[]`. */
export const StatusPeer = Schema.Struct({
  instance_id: Schema.String.annotate({ description: "The instance's id (`gw-<uuid>`, new at every start)." }),
  role: Schema.Literals(CLUSTER_ROLES).annotate({ description: "Its `SVC_ROLE`." }),
  version: Schema.String,
  started_at: Schema.String,
  last_heartbeat_at: Schema.String.annotate({
    description: "Its last heartbeat (ISO-8601; every 5 s in a cluster; now for a single instance)."
  }),
  connections: Count.annotate({ description: "WebSocket connections it holds (handshaken)." })
}).annotate({ identifier: "StatusPeer" })
export type StatusPeer = typeof StatusPeer.Type

/** `GET /status`. */
export const StatusResponse = Schema.Struct({
  status: Schema.Literal("ok"),
  version: Schema.String,
  instance_id: Schema.String.annotate({
    description: "This process's id (`gw-<uuid>`, new at every start): the presence `self` entry and its backplane instance."
  }),
  role: Schema.Literals(CLUSTER_ROLES).annotate({
    description: "What this process serves (`SVC_ROLE`): `all` = HTTP, WebSocket and the workflow worker; `edge` = HTTP and WebSocket; `worker` = background work."
  }),
  db_kind: Schema.Literals(["sqlite", "postgres"]),
  is_exposed: Schema.Boolean.annotate({ description: "True when bound to a non-loopback address." }),
  uptime_s: Count.annotate({ description: "Whole seconds since the gateway started." }),
  ws: StatusWs,
  policy: StatusPolicy,
  queue_depth: StatusQueueDepth,
  features: StatusFeatures,
  peers: Schema.Array(StatusPeer).annotate({
    description: "Every live instance of the cluster, this one included, oldest start first (one instance: itself)."
  })
}).annotate({ identifier: "StatusResponse" })
export type StatusResponse = typeof StatusResponse.Type

/** `GET /usage` query: at most one of `run_id`, `key`, `agent_id` (none: the whole deployment). */
export const UsageQuery = {
  run_id: Schema.optionalKey(Schema.NonEmptyString.check(Schema.isMaxLength(256))),
  key: Schema.optionalKey(Schema.NonEmptyString.check(Schema.isMaxLength(MAX_KEY_LENGTH))),
  agent_id: Schema.optionalKey(AgentId)
}
/** The decoded query of `GET /usage`. */
export interface UsageQuery {
  readonly run_id?: string | undefined
  readonly key?: string | undefined
  readonly agent_id?: string | undefined
}

/** What the totals cover: one run, one key, one agent's keys (`agent:<id>:…`), or everything. */
export const UsageScope = Schema.Union([
  Schema.Struct({ kind: Schema.Literal("run"), run_id: Schema.String }),
  Schema.Struct({ kind: Schema.Literal("key"), key: Schema.String }),
  Schema.Struct({ kind: Schema.Literal("agent"), agent_id: Schema.String }),
  Schema.Struct({ kind: Schema.Literal("deployment") })
]).annotate({ identifier: "UsageScope" })
export type UsageScope = typeof UsageScope.Type

/** Sums over the step attempts and agent turns of the scope; cost fields an attempt did not report count as 0. */
export const UsageTotals = Schema.Struct({
  attempts: Count.annotate({ description: "Step attempts in the scope, with or without a cost." }),
  duration_ms: Schema.Number,
  input_tokens: Schema.Number,
  output_tokens: Schema.Number,
  total_tokens: Schema.Number.annotate({ description: "An attempt's total_tokens, else its input + output tokens." }),
  usd_micros: Schema.Number,
  agent_turns: Count.annotate({ description: "Agent runtime turns in the scope; their tokens and cost are in the sums above." })
}).annotate({ identifier: "UsageTotals" })
export type UsageTotals = typeof UsageTotals.Type

/** `GET /usage`. An unknown run, key or agent has zero totals (the scope is echoed). */
export const UsageResponse = Schema.Struct({
  status: Schema.Literal("ok"),
  generated_at: Schema.String,
  scope: UsageScope,
  totals: UsageTotals
}).annotate({ identifier: "UsageResponse" })
export type UsageResponse = typeof UsageResponse.Type
