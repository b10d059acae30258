/** Settings validation (issue #2 §2): clear problems, never half-configured. */
import { describe, expect, it } from "@effect/vitest"
import { Option, Redacted } from "effect"
import { isLoopbackHost, type RawSettings } from "../layers/config.ts"
import { DECLARED_SETTINGS, DEFAULTS, defaultSettings, validateSettings } from "../src/app/settings.ts"

const raw = (overrides: Partial<RawSettings> = {}): RawSettings => ({
  ...DEFAULTS,
  home: Option.some("/tmp/svc"),
  databaseUrl: Option.none(),
  adminToken: Option.none(),
  auth: "on",
  ...overrides
})

const problems = (overrides: Partial<RawSettings>) => {
  const result = validateSettings(raw(overrides))
  return result.ok ? [] : result.problems
}

describe("isLoopbackHost", () => {
  it.each(["localhost", "127.0.0.1", "127.1.2.3", "::1", "[::1]", "0:0:0:0:0:0:0:1", "LOCALHOST"])("%s is loopback", (h) => {
    expect(isLoopbackHost(h)).toBe(true)
  })
  it.each(["0.0.0.0", "::", "10.0.0.5", "192.168.1.1", "example.com", "128.0.0.1"])("%s is exposed", (h) => {
    expect(isLoopbackHost(h)).toBe(false)
  })
})

describe("validateSettings", () => {
  it("applies defaults on a loopback bind", () => {
    const result = validateSettings(raw({ home: Option.none() }))
    expect(result.ok).toBe(true)
    if (!result.ok) return
    expect(result.settings.isExposed).toBe(false)
    expect(result.settings.authEnabled).toBe(true)
    expect(result.settings.databaseUrl).toBeUndefined()
    expect(result.settings.home).toMatch(/\.svc$/)
  })

  it("refuses SVC_AUTH=off on a non-loopback bind", () => {
    expect(problems({ host: "0.0.0.0", auth: "off" }).join()).toMatch(/SVC_AUTH=off is only allowed on a loopback bind/)
    expect(problems({ host: "127.0.0.1", auth: "off" })).toEqual([])
  })

  it("requires an admin token of at least 32 characters on a non-loopback bind", () => {
    expect(problems({ host: "0.0.0.0", adminToken: Option.some(Redacted.make("short")) }).join()).toMatch(/at least 32 characters/)
    expect(problems({ host: "0.0.0.0", adminToken: Option.some(Redacted.make("x".repeat(32))) })).toEqual([])
    // A generated token (64 hex characters) is always strong enough.
    expect(problems({ host: "0.0.0.0" })).toEqual([])
  })

  it("marks non-loopback binds as exposed", () => {
    const result = validateSettings(raw({ host: "0.0.0.0" }))
    expect(result.ok && result.settings.isExposed).toBe(true)
  })

  it("accepts postgres URLs and refuses other schemes", () => {
    expect(problems({ databaseUrl: Option.some("postgres://u@h/db") })).toEqual([])
    expect(problems({ databaseUrl: Option.some("postgresql://u@h/db") })).toEqual([])
    expect(problems({ databaseUrl: Option.some("mysql://u@h/db") }).join()).toMatch(/SVC_DATABASE_URL/)
  })

  it("reports every problem at once", () => {
    const found = problems({ host: "0.0.0.0", auth: "off", rateLimitMax: 0, maxBodyBytes: 0, databaseUrl: Option.some("x://") })
    expect(found.length).toBe(4)
  })

  it("checks the artifact store settings: s3 needs a bucket, valid names and URLs, both credentials or neither", () => {
    expect(problems({ artifactStore: "s3" }).join()).toMatch(/SVC_ARTIFACT_STORE=s3 needs SVC_S3_BUCKET/)
    expect(problems({ artifactStore: "s3", s3Bucket: Option.some("svc-artifacts") })).toEqual([])
    expect(problems({ s3Bucket: Option.some("No_Such") }).join()).toMatch(/SVC_S3_BUCKET \/ --s3-bucket must be a bucket name/)
    expect(problems({ s3Endpoint: Option.some("ftp://x") }).join()).toMatch(/SVC_S3_ENDPOINT \/ --s3-endpoint must be an http:\/\/ or https:\/\/ URL/)
    expect(problems({ s3Endpoint: Option.some("http://127.0.0.1:9000") })).toEqual([])
    expect(problems({ s3Region: "US EAST" }).join()).toMatch(/SVC_S3_REGION \/ --s3-region must be a region name/)
    expect(problems({ s3AccessKeyId: Option.some("AKIA") }).join()).toMatch(/SVC_S3_ACCESS_KEY_ID and SVC_S3_SECRET_ACCESS_KEY are set together/)
    const fs = validateSettings(raw())
    expect(fs.ok && [fs.settings.artifactStore, fs.settings.s3Region, fs.settings.s3ForcePathStyle]).toEqual(["fs", "us-east-1", "auto"])
  })

  it("refuses an empty admin token", () => {
    expect(problems({ adminToken: Option.some(Redacted.make("  ")) }).join()).toMatch(/empty/)
  })

  it("takes the approval TTL in whole seconds (SVC_APPROVAL_TTL_S, default 86400)", () => {
    const result = validateSettings(raw())
    expect(result.ok && result.settings.approvalTtlSeconds).toBe(86_400)
    for (const bad of [0, -5, 1.5]) expect(problems({ approvalTtlSeconds: bad }).join()).toMatch(/SVC_APPROVAL_TTL_S must be an integer >= 1/)
  })

  it("reads SVC_TRACE_PROPAGATION_TARGETS as comma-separated URL patterns (default none) and names it when an entry is not one", () => {
    const none = validateSettings(raw())
    expect(none.ok && none.settings.tracePropagationTargets).toEqual([])
    const some = validateSettings(raw({ tracePropagationTargets: Option.some(" https://api.internal.example/* ,, http://127.0.0.1:*,") }))
    expect(some.ok && some.settings.tracePropagationTargets).toEqual(["https://api.internal.example/*", "http://127.0.0.1:*"])
    expect(problems({ tracePropagationTargets: Option.some("https://ok.example/*,api.example.com") }).join()).toBe(
      "SVC_TRACE_PROPAGATION_TARGETS / --trace-propagation-targets: each entry must be a URL pattern starting with http://, https:// or * (at most 1024 characters; * matches any characters), such as https://api.example.com/*, got \"api.example.com\""
    )
  })
})

describe("cluster settings (issue 27 §1)", () => {
  const pg = Option.some("postgres://svc@db/svc")
  const secret = Option.some(Redacted.make("s".repeat(32)))

  it("default to one gateway: SVC_CLUSTER=0, SVC_ROLE=all, the runner on port 34431, no Redis", () => {
    const result = validateSettings(raw())
    expect(result.ok && [result.settings.clusterEnabled, result.settings.role, result.settings.runnerPort, result.settings.redisUrl])
      .toEqual([false, "all", 34431, undefined])
    expect(result.ok && result.settings.clusterSecret).toBeUndefined()
  })

  it("SVC_CLUSTER=1 needs PostgreSQL and the cluster secret; with both it is valid", () => {
    expect(problems({ cluster: "1" })).toEqual([
      "SVC_CLUSTER=1 needs PostgreSQL storage: set SVC_DATABASE_URL to a postgres:// URL (SQLite serves one instance only)",
      "SVC_CLUSTER=1 needs SVC_CLUSTER_SECRET: at least 32 characters, the same on every instance"
    ])
    expect(problems({ cluster: "1", databaseUrl: pg })).toEqual([
      "SVC_CLUSTER=1 needs SVC_CLUSTER_SECRET: at least 32 characters, the same on every instance"
    ])
    const ok = validateSettings(raw({ cluster: "1", databaseUrl: pg, clusterSecret: secret }))
    expect(ok.ok && ok.settings.clusterEnabled).toBe(true)
    expect(ok.ok && ok.settings.clusterSecret !== undefined && Redacted.value(ok.settings.clusterSecret)).toBe("s".repeat(32))
  })

  it("the cluster secret is at least 32 characters and never repeated in the problem", () => {
    const found = problems({ cluster: "1", databaseUrl: pg, clusterSecret: Option.some(Redacted.make("short-secret-value")) })
    expect(found).toEqual(["SVC_CLUSTER_SECRET / --cluster-secret must be at least 32 characters (the same on every instance)"])
    expect(found.join()).not.toContain("short-secret-value")
  })

  it("SVC_ROLE=edge|worker needs SVC_CLUSTER=1 (so PostgreSQL); all needs nothing", () => {
    expect(problems({ role: "edge" })).toEqual([
      "SVC_ROLE=edge needs SVC_CLUSTER=1 and PostgreSQL (SVC_DATABASE_URL); accepted without a cluster: all"
    ])
    expect(problems({ role: "worker", databaseUrl: pg }).join()).toMatch(/^SVC_ROLE=worker needs SVC_CLUSTER=1/)
    const worker = validateSettings(raw({ role: "worker", cluster: "1", databaseUrl: pg, clusterSecret: secret }))
    expect(worker.ok && worker.settings.role).toBe("worker")
  })

  it("checks the runner's address and the Redis URL", () => {
    expect(problems({ runnerHost: Option.some("gw 1") })).toEqual([
      "SVC_RUNNER_HOST / --runner-host must be a host name or an IP address (such as gw-1.internal or 10.0.0.5)"
    ])
    expect(problems({ runnerHost: Option.some("gw-1.internal") })).toEqual([])
    expect(problems({ runnerHost: Option.some("10.0.0.5") })).toEqual([])
    expect(problems({ runnerPort: 0 })).toEqual(["SVC_RUNNER_PORT / --runner-port must be an integer 1..65535"])
    expect(problems({ redisUrl: Option.some("http://cache:6379") })).toEqual(["SVC_REDIS_URL / --redis-url must be a redis:// or rediss:// URL"])
    const redis = validateSettings(raw({ redisUrl: Option.some("redis://cache:6379/0") }))
    expect(redis.ok && redis.settings.redisUrl).toBe("redis://cache:6379/0")
  })

  it("defaultSettings takes the cluster settings as values", () => {
    const settings = defaultSettings({ clusterEnabled: true, databaseUrl: "postgres://svc@db/svc", clusterSecret: Redacted.make("k".repeat(40)), role: "edge" })
    expect([settings.clusterEnabled, settings.role]).toEqual([true, "edge"])
    expect(() => defaultSettings({ clusterEnabled: true })).toThrow(/SVC_CLUSTER=1 needs PostgreSQL storage/)
  })
})

describe("settings declarations (issue 21 §1)", () => {
  it("give GatewaySettings the same properties as before they were declared by subsystem", () => {
    expect(Object.keys(defaultSettings()).sort()).toEqual([
      "adminToken", "agentEnabled", "agentHistoryTokens", "agentModel", "anthropicBaseUrl", "approvalTtlSeconds",
      "artifactStore", "authEnabled", "authProfilesEnabled", "automationEnabled", "canvasMaxBytes", "cliEnabled",
      "cliUnsandboxed", "clusterEnabled", "clusterSecret", "databaseUrl", "embeddingsApiKey", "embeddingsBaseUrl", "embeddingsModel", "engineApiEnabled",
      "execConcurrency", "headersTimeoutMs", "home", "host", "isExposed", "logLevel", "maxBodyBytes",
      "maxConnections", "memorySemantic", "memorySemanticMinSimilarity", "messengerApiUrl", "messengerBotToken",
      "messengerWebhookSecret", "metricsEnabled", "modelsDevDisableFetch", "modelsDevUrl", "oauthProvidersConfig",
      "openaiBaseUrl", "otlpEndpoint", "pluginCallTimeoutMs", "pluginsAllowUnlocked", "pluginsEnabled",
      "policyBundlePath", "port",
      "rateLimitMax", "rateLimitWindowSeconds", "redisUrl", "requestTimeoutMs", "role", "runnerHost", "runnerPort", "s3AccessKeyId", "s3Bucket", "s3Endpoint",
      "s3ForcePathStyle", "s3Region", "s3SecretAccessKey", "secretProvider", "secretsMasterKeyPath",
      "snapshotImportEnabled", "sqliteSynchronous", "tracePropagationTargets", "uiDir", "wsHandshakeTimeoutMs",
      "wsMaxMessageBytes", "wsPingIntervalMs", "wsPongTimeoutMs"
    ])
  })

  it("name each variable and flag once", () => {
    const envs = DECLARED_SETTINGS.map((d) => d.setting.env)
    const flags = DECLARED_SETTINGS.map((d) => d.setting.flag)
    expect(new Set(envs).size).toBe(envs.length)
    expect(new Set(flags).size).toBe(flags.length)
  })

  it("keep the documented defaults", () => {
    const settings = defaultSettings()
    expect(settings).toMatchObject({
      host: "127.0.0.1", port: 8788, authEnabled: true, logLevel: "Info", approvalTtlSeconds: 86_400, execConcurrency: 4,
      authProfilesEnabled: true, secretProvider: "db", engineApiEnabled: false, cliEnabled: false, cliUnsandboxed: false,
      automationEnabled: false, snapshotImportEnabled: false, metricsEnabled: true, tracePropagationTargets: [],
      databaseUrl: undefined, adminToken: undefined, otlpEndpoint: undefined, isExposed: false, sqliteSynchronous: "FULL",
      uiDir: undefined, memorySemantic: "off", memorySemanticMinSimilarity: 25, embeddingsBaseUrl: "https://api.openai.com/v1",
      embeddingsModel: "text-embedding-3-small", embeddingsApiKey: undefined
    })
  })

  it("map defaultSettings overrides back through each declaration", () => {
    const settings = defaultSettings({
      host: "0.0.0.0",
      adminToken: " " + "t".repeat(40) + " ",
      engineApiEnabled: true,
      metricsEnabled: false,
      secretProvider: "env",
      tracePropagationTargets: ["https://api.example.com/*"],
      policyBundlePath: " /etc/svc/bundle.yml "
    })
    expect(settings.isExposed).toBe(true)
    expect(settings.adminToken && Redacted.value(settings.adminToken)).toBe("t".repeat(40))
    expect(settings).toMatchObject({
      engineApiEnabled: true, metricsEnabled: false, secretProvider: "env", tracePropagationTargets: ["https://api.example.com/*"],
      policyBundlePath: "/etc/svc/bundle.yml"
    })
    expect(() => defaultSettings({ host: "0.0.0.0", authEnabled: false })).toThrow(/SVC_AUTH=off is only allowed on a loopback bind/)
    expect(() => defaultSettings({ execConcurrency: 0 })).toThrow(/SVC_EXEC_CONCURRENCY must be an integer >= 1/)
  })
})
