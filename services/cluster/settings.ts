/**
 * The cluster's settings (issue 27 §1; layers/settings.ts): whether this
 * gateway is one instance of several on one PostgreSQL database, its role,
 * the shared secret of the runner listener, the runner's address and the
 * Redis of the shared failed-authentication counters (docs/scaling.md).
 * The rules between settings (`SVC_CLUSTER=1` and split roles need
 * PostgreSQL, the cluster secret is required with `SVC_CLUSTER=1`) are
 * {@link clusterProblems}, applied by layers/config.ts with the other
 * cross-field rules.
 *
 * @module
 */
import { Option, Redacted, Result } from "effect"
import { optionalTextValue, Setting } from "../../layers/settings.ts"

/** The roles of one instance: `all` serves clients and runs background work, `edge` only the first, `worker` only the second. */
export const CLUSTER_ROLES = ["all", "edge", "worker"] as const

/** One of {@link CLUSTER_ROLES}. */
export type ClusterRole = (typeof CLUSTER_ROLES)[number]

/** The shortest `SVC_CLUSTER_SECRET` accepted (issue 27 §1). */
export const MIN_CLUSTER_SECRET_LENGTH = 32

/** The runner port of `effect/cluster` (its `ShardingConfig` default). */
export const DEFAULT_RUNNER_PORT = 34431

/** A host name (letters, digits, `-`, `.`), an IPv4 address or a bracketless IPv6 address. */
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|[0-9A-Fa-f:.]+)$/

/**
 * `SVC_CLUSTER` (`0`/`1`, read as `clusterEnabled`), `SVC_ROLE`
 * (`all`/`edge`/`worker`), `SVC_CLUSTER_SECRET` (a `Redacted` of at least 32
 * characters, or `undefined`), `SVC_RUNNER_HOST` (`undefined`: the host
 * name of the machine), `SVC_RUNNER_PORT` and `SVC_REDIS_URL` (`undefined`:
 * the failed-authentication counters of a cluster are in PostgreSQL).
 */
export const ClusterSettings = Setting.group("cluster", {
  cluster: Setting.named(
    "clusterEnabled",
    Setting.toggle({
      env: "SVC_CLUSTER",
      flag: "cluster",
      values: ["0", "1"],
      on: "1",
      default: "0",
      summary: "1: one instance of several gateways on one PostgreSQL database (SVC_CLUSTER); needs SVC_DATABASE_URL and SVC_CLUSTER_SECRET",
      doc:
        "`1`: this gateway is one instance of several on one PostgreSQL database (`docs/scaling.md`); needs `SVC_DATABASE_URL` and `SVC_CLUSTER_SECRET`, every instance with the same master key and admin token."
    })
  ),
  role: Setting.choice({
    env: "SVC_ROLE",
    flag: "role",
    values: CLUSTER_ROLES,
    default: "all",
    summary: "What this instance does: all, edge (HTTP and WebSocket) or worker (background work); edge and worker need SVC_CLUSTER=1 (SVC_ROLE)",
    doc:
      "`all` serves HTTP and WebSocket and runs the background work; `edge` only serves, `worker` only runs the background work and answers `/healthz` (`docs/scaling.md` \"Roles\"). `edge` and `worker` need `SVC_CLUSTER=1` (so PostgreSQL)."
  }),
  clusterSecret: Setting.secret({
    env: "SVC_CLUSTER_SECRET",
    flag: "cluster-secret",
    unset: "unset",
    summary: `Shared secret of the instances' runner listener, at least ${MIN_CLUSTER_SECRET_LENGTH} characters, the same on every instance (SVC_CLUSTER_SECRET)`,
    doc:
      `The secret every instance of one cluster shares (at least ${MIN_CLUSTER_SECRET_LENGTH} characters): every request to an instance's workflow runner listener (\`SVC_RUNNER_PORT\`) must carry it, or is answered 401 (\`docs/scaling.md\` "Runners"). Required with \`SVC_CLUSTER=1\`; never logged.`,
    resolve: (raw) => {
      const secret = Option.getOrUndefined(raw)
      if (secret === undefined) return Result.succeed(undefined)
      const text = Redacted.value(secret).trim()
      return text.length < MIN_CLUSTER_SECRET_LENGTH
        ? Result.fail(`SVC_CLUSTER_SECRET / --cluster-secret must be at least ${MIN_CLUSTER_SECRET_LENGTH} characters (the same on every instance)`)
        : Result.succeed(Redacted.make(text))
    }
  }),
  runnerHost: Setting.optionalText({
    env: "SVC_RUNNER_HOST",
    flag: "runner-host",
    unset: "unset: this machine's host name",
    summary: "Host name or address the other instances reach this instance's runner at (SVC_RUNNER_HOST)",
    doc: "The host name or address the other instances reach this instance's runner at (`docs/scaling.md`). Unset: the machine's host name.",
    resolve: (raw) => {
      const host = optionalTextValue(raw)
      return host !== undefined && (host.length > 253 || !HOST.test(host))
        ? Result.fail("SVC_RUNNER_HOST / --runner-host must be a host name or an IP address (such as gw-1.internal or 10.0.0.5)")
        : Result.succeed(host)
    }
  }),
  runnerPort: Setting.integer({
    env: "SVC_RUNNER_PORT",
    flag: "runner-port",
    default: DEFAULT_RUNNER_PORT,
    min: 1,
    max: 65535,
    problem: () => "SVC_RUNNER_PORT / --runner-port must be an integer 1..65535",
    summary: "Port of this instance's runner listener (SVC_RUNNER_PORT)",
    doc: "The port of this instance's workflow runner listener (authenticated by `SVC_CLUSTER_SECRET`), reached by the other instances; bound on every interface by `all` and `worker` instances with `SVC_CLUSTER=1` (an `edge` opens none)."
  }),
  redisUrl: Setting.optionalText({
    env: "SVC_REDIS_URL",
    flag: "redis-url",
    unset: "unset: PostgreSQL",
    summary: "redis:// URL of the store of the failed-authentication counters with SVC_CLUSTER=1 (SVC_REDIS_URL)",
    doc:
      "`redis://…` or `rediss://…`: with `SVC_CLUSTER=1` the failed-authentication counters of every instance are kept there; unset, in PostgreSQL (`docs/scaling.md` \"Shared rate limit\"). Ignored without `SVC_CLUSTER=1`.",
    resolve: (raw) => {
      const url = optionalTextValue(raw)
      return url !== undefined && (!/^rediss?:\/\//i.test(url) || !URL.canParse(url))
        ? Result.fail("SVC_REDIS_URL / --redis-url must be a redis:// or rediss:// URL")
        : Result.succeed(url)
    }
  })
})

declare module "../../layers/settings.ts" {
  /** Enters the cluster's settings into the settings type (layers/config.ts `GatewaySettings`). */
  interface SettingsRegistry {
    readonly cluster: typeof ClusterSettings.settings
  }
}

/** What {@link clusterProblems} reads: the raw values, as `validateSettings` holds them. */
export interface ClusterRaw {
  readonly cluster: "0" | "1"
  readonly role: ClusterRole
  readonly clusterSecret: Option.Option<Redacted.Redacted<string>>
  readonly databaseUrl: Option.Option<string>
}

/**
 * The rules between the cluster's settings and storage, one sentence each
 * naming the variables and what is accepted: `SVC_CLUSTER=1` needs
 * PostgreSQL and `SVC_CLUSTER_SECRET`; `SVC_ROLE=edge|worker` needs
 * `SVC_CLUSTER=1` (the roles split one gateway's work across instances).
 */
export const clusterProblems = (raw: ClusterRaw): ReadonlyArray<string> => {
  const problems: Array<string> = []
  const postgres = optionalTextValue(raw.databaseUrl) !== undefined
  if (raw.cluster === "1" && !postgres) {
    problems.push("SVC_CLUSTER=1 needs PostgreSQL storage: set SVC_DATABASE_URL to a postgres:// URL (SQLite serves one instance only)")
  }
  if (raw.cluster === "1" && Option.isNone(raw.clusterSecret)) {
    problems.push(`SVC_CLUSTER=1 needs SVC_CLUSTER_SECRET: at least ${MIN_CLUSTER_SECRET_LENGTH} characters, the same on every instance`)
  }
  if (raw.role !== "all" && raw.cluster !== "1") {
    problems.push(`SVC_ROLE=${raw.role} needs SVC_CLUSTER=1 and PostgreSQL (SVC_DATABASE_URL); accepted without a cluster: all`)
  }
  return problems
}
