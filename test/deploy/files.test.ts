/**
 * The deployment files (issue 27 §5; docs/scaling.md "Container image",
 * "Compose"), checked without a container engine: compose.yaml's services,
 * shared cluster settings, health-gated start and proxy; the nginx
 * configuration's upstreams and WebSocket upgrade; the Dockerfile's stages,
 * non-root user, health check and built console.
 */
import { Option, Redacted } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { parse } from "yaml"
import { DEFAULTS, validateSettings } from "../../src/app/settings.ts"

const ROOT = join(import.meta.dirname, "..", "..")
const read = (path: string) => readFileSync(join(ROOT, path), "utf8")

interface Service {
  readonly image?: string
  readonly build?: unknown
  readonly environment?: Record<string, string>
  readonly depends_on?: Record<string, { condition: string }>
  readonly secrets?: ReadonlyArray<string>
  readonly volumes?: ReadonlyArray<string>
  readonly ports?: ReadonlyArray<string>
  readonly healthcheck?: unknown
}

const compose = parse(read("compose.yaml"), { merge: true }) as {
  services: Record<string, Service>
  secrets: Record<string, { file: string }>
}
const GATEWAYS = ["gateway-1", "gateway-2", "gateway-3"]

describe("compose.yaml", () => {
  it("has PostgreSQL, three gateways and a proxy", () => {
    expect(Object.keys(compose.services).sort()).toEqual([...GATEWAYS, "postgres", "proxy"].sort())
    expect(compose.services.postgres!.healthcheck).toBeDefined()
  })

  it.each(GATEWAYS)("%s: SVC_CLUSTER=1 on the shared database, the shared secrets, its own runner host; valid settings", (name) => {
    const service = compose.services[name]!
    const env = service.environment!
    expect(service.build).toBe(".")
    expect(env.SVC_CLUSTER).toBe("1")
    expect(env.SVC_DATABASE_URL).toMatch(/^postgres:\/\/.+@postgres:5432\//)
    expect(env.SVC_RUNNER_HOST).toBe(name)
    expect(env.SVC_CLUSTER_SECRET).toMatch(/^\$\{SVC_CLUSTER_SECRET:\?/)
    expect(env.SVC_ADMIN_TOKEN).toMatch(/^\$\{SVC_ADMIN_TOKEN:\?/)
    expect(env.SVC_SECRETS_MASTER_KEY_PATH).toBe("/run/secrets/svc_master_key")
    expect(service.secrets).toEqual(["svc_master_key"])
    expect(service.depends_on).toEqual({ postgres: { condition: "service_healthy" } })
    // The settings as compose gives them (the interpolated secrets replaced by values of the required length).
    const result = validateSettings({
      ...DEFAULTS,
      host: env.SVC_HOST!,
      port: Number(env.SVC_PORT),
      databaseUrl: Option.some(env.SVC_DATABASE_URL!),
      cluster: "1",
      role: env.SVC_ROLE as "all",
      runnerHost: Option.some(env.SVC_RUNNER_HOST!),
      runnerPort: Number(env.SVC_RUNNER_PORT),
      clusterSecret: Option.some(Redacted.make("c".repeat(64))),
      adminToken: Option.some(Redacted.make("a".repeat(64))),
      secretsMasterKeyPath: Option.some(env.SVC_SECRETS_MASTER_KEY_PATH!)
    })
    expect(result.ok ? [] : result.problems).toEqual([])
  })

  it("the master key is one compose secret, shared by every gateway", () => {
    expect(compose.secrets.svc_master_key!.file).toBe("./deploy/secrets.master.key")
  })

  it("the proxy starts once every gateway is healthy and mounts deploy/nginx.conf", () => {
    const proxy = compose.services.proxy!
    expect(proxy.depends_on).toEqual(Object.fromEntries(GATEWAYS.map((g) => [g, { condition: "service_healthy" }])))
    expect(proxy.volumes).toEqual(["./deploy/nginx.conf:/etc/nginx/nginx.conf:ro"])
    expect(proxy.ports).toEqual(["127.0.0.1:8788:8788"])
  })
})

describe("deploy/nginx.conf", () => {
  const conf = read("deploy/nginx.conf")
  it("spreads over the three gateways and passes the WebSocket upgrade", () => {
    for (const g of GATEWAYS) expect(conf).toContain(`server ${g}:8788`)
    expect(conf).toMatch(/proxy_set_header Upgrade \$http_upgrade;/)
    expect(conf).toMatch(/proxy_set_header Connection \$connection_upgrade;/)
    expect(conf).toMatch(/proxy_http_version 1\.1;/)
    expect(conf).not.toMatch(/^\s*(ip_hash|sticky|hash)\b/m) // round-robin: no affinity
  })
})

describe("Dockerfile", () => {
  const dockerfile = read("Dockerfile")
  it("builds in one stage and runs in another, as a non-root user, with a health check on /healthz and the console", () => {
    expect(dockerfile.match(/^FROM /gm)).toHaveLength(2)
    expect(dockerfile).toMatch(/^FROM .+ AS build$/m)
    expect(dockerfile).toMatch(/^USER svc$/m)
    expect(dockerfile).toMatch(/^HEALTHCHECK .+\n\s+CMD .+\/healthz/m)
    expect(dockerfile).toMatch(/COPY --from=build .*\/src\/dist\/ui \.\/dist\/ui/)
    expect(dockerfile).toMatch(/COPY --from=build .*\/src\/dist\/cli \.\/dist\/cli/)
    expect(dockerfile).toMatch(/npm ci/)
    expect(dockerfile).toMatch(/npm prune --omit=dev/)
  })

  it("the paths it copies exist after a build (the bin's import, the bundled catalog)", () => {
    expect(read("bin/svc-gateway.mjs")).toContain("../dist/cli/main.mjs")
    expect(read("services/models/catalog.bundled.json").length).toBeGreaterThan(0)
  })
})
