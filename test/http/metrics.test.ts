/**
 * `GET /metrics` scraped from a running gateway (issue 14 §1;
 * docs/operations.md "Metrics"): Prometheus text with HELP and TYPE lines;
 * HTTP series labelled by route template (never the raw path; `/*` when no
 * route matched); auth failures by reason; WebSocket connections and
 * messages (undeclared types as `unknown`); workflow runs and step
 * durations once a run happened; pending approvals, memory and event-loop
 * lag sampled at scrape time; SVC_METRICS=off answers 404 and records
 * nothing.
 *
 * Metrics live in the process-wide registry, so assertions compare against
 * a scrape taken before the action, or use labels only this file produces.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { spawnSync } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { GatewayMetrics, METRICS } from "../../services/metrics/GatewayMetrics.ts"
import { eventually } from "../support/eventually.ts"
import { type HttpTarget, startHttpTarget } from "../support/httpTarget.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { type Exposition, parseExposition } from "../support/prometheus.ts"
import { connectPeer } from "../support/wsPeer.ts"

/** Http steps to 127.0.0.1 are allowed (as in test/http/workflow.test.ts). */
const POLICY = `v: 1
tools:
  allow: [tool.http.fetch]
network_egress:
  allow: ["http://127.0.0.1:*"]
`

describe("GET /metrics", () => {
  let gw: TestGateway
  let http: HttpTarget
  let target: string
  const closers: Array<() => void> = []

  beforeAll(async () => {
    http = await startHttpTarget(() => ({}))
    target = http.url
    const home = mkdtempSync(join(tmpdir(), "svc-metrics-"))
    writeFileSync(join(home, "policy.yml"), POLICY)
    gw = await startGateway({ rateLimitMax: 10_000, engineApiEnabled: true, home })
  })
  afterAll(async () => {
    for (const close of closers) close()
    await gw?.close()
    await http?.close()
  })

  const scrape = async (): Promise<Exposition & { readonly text: string }> => {
    const res = await gw.fetch("/metrics", { headers: { authorization: `Bearer ${gw.adminToken}` } })
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8")
    const text = await res.text()
    return { ...parseExposition(text), text }
  }
  /** GET with the admin token, another token, or none (`null`). */
  const get = (path: string, token: string | null = gw.adminToken) =>
    gw.fetch(path, token === null ? {} : { headers: { authorization: `Bearer ${token}` } })

  it("counts requests by route template, never by raw path", async () => {
    const before = await scrape()
    const labels = { method: "GET", route: "/workflow/runs/:run_id", status: "404" }
    expect((await get("/workflow/runs/run-abc")).status).toBe(404)
    expect((await get("/workflow/runs/run-def")).status).toBe(404)
    expect((await get("/no/such/route-xyz")).status).toBe(404)
    const after = await scrape()
    expect(after.value("http_requests_total", labels) - before.value("http_requests_total", labels)).toBe(2)
    expect(after.value("http_requests_total", { method: "GET", route: "/*", status: "404" })).toBeGreaterThanOrEqual(1)
    expect(after.text).not.toContain("run-abc")
    expect(after.text).not.toContain("route-xyz")

    const buckets = after.find("http_request_duration_seconds_bucket", { method: "GET", route: "/workflow/runs/:run_id" })
    expect(buckets.map((b) => b.labels.le)).toEqual(["0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "+Inf"])
    expect(after.value("http_request_duration_seconds_count", { method: "GET", route: "/workflow/runs/:run_id" })).toBeGreaterThanOrEqual(2)
    // Every route of every series is a declared template or /*.
    for (const sample of after.find("http_requests_total")) expect(sample.labels.route).toMatch(/^\/(\*|[a-z/:_.*-]*)$/)
  })

  it("declares every series with its HELP and TYPE", async () => {
    const exposition = await scrape()
    for (const name of ["http_requests_total", "http_request_duration_seconds", "approvals_pending", "process_resident_memory_bytes", "process_heap_used_bytes"]) {
      const definition = Object.values(METRICS).find((m) => m.name === name)!
      expect(exposition.help.get(name)).toBe(definition.help)
      expect(exposition.type.get(name)).toBe(definition.kind)
    }
    expect(exposition.value("approvals_pending")).toBe(0)
    expect(exposition.value("process_resident_memory_bytes")).toBeGreaterThan(1_000_000)
    expect(exposition.value("process_heap_used_bytes")).toBeGreaterThan(100_000)
    expect(exposition.find("nodejs_eventloop_lag_seconds")).toHaveLength(1)
    expect(exposition.type.get("nodejs_eventloop_lag_seconds")).toBe("gauge")
  })

  it("counts authentication failures by reason", async () => {
    const before = await scrape()
    expect((await get("/status", "not-a-valid-token")).status).toBe(401)
    expect((await get("/status", null)).status).toBe(401)
    const reader = (await readJson(await postJson(gw, "/auth/device-tokens/issue", { device_id: "dev-m", role: "client", scopes: ["operator.read"] }, gw.adminToken))).token
    expect((await postJson(gw, "/policy/check", {}, reader)).status).toBe(403)
    const after = await scrape()
    for (const reason of ["invalid_token", "missing_token", "forbidden"]) {
      expect(after.value("auth_failures_total", { reason }) - before.value("auth_failures_total", { reason })).toBe(1)
    }
    expect(after.type.get("auth_failures_total")).toBe("counter")
    expect(after.help.get("auth_failures_total")).toBe(METRICS.authFailures.help)
  })

  it("counts WebSocket connections and messages by declared type and direction", async () => {
    const before = await scrape()
    const { peer } = await connectPeer(gw.url, gw.adminToken)
    closers.push(() => peer.ws.close())
    expect((await peer.request("ping", {})).ok).toBe(true)
    expect((await peer.request("no.such.type", {})).ok).toBe(false)
    peer.send("not json")
    await peer.next((m) => m.type === "error")
    const after = await scrape()
    const delta = (labels: Record<string, string>) => after.value("ws_messages_total", labels) - before.value("ws_messages_total", labels)
    expect(after.value("ws_connections_active", { role: "client" }) - before.value("ws_connections_active", { role: "client" })).toBe(1)
    expect(delta({ type: "connect.init", direction: "in" })).toBe(1)
    expect(delta({ type: "connect.proof", direction: "out" })).toBe(1)
    expect(delta({ type: "ping", direction: "in" })).toBe(1)
    expect(delta({ type: "ping", direction: "out" })).toBe(1)
    expect(delta({ type: "unknown", direction: "in" })).toBe(2)
    expect(delta({ type: "unknown", direction: "out" })).toBe(1)
    expect(delta({ type: "error", direction: "out" })).toBe(1)
    expect(after.text).not.toContain("no.such.type")
    expect(after.type.get("ws_messages_total")).toBe("counter")
    expect(after.type.get("ws_connections_active")).toBe("gauge")

    peer.ws.close()
    await eventually(async () => (await scrape()).value("ws_connections_active", { role: "client" }) === before.value("ws_connections_active", { role: "client" }), "the connection gauge to drop")
  })

  it("counts workflow runs and step durations once a run happened; pending approvals at scrape time", async () => {
    const before = await scrape()
    expect(before.find("workflow_runs_total")).toHaveLength(0)
    expect(before.find("workflow_step_duration_seconds_count")).toHaveLength(0)

    const run = await readJson(await postJson(gw, "/workflow/run", { key: "agent:metrics:main", steps: [{ type: "Http", args: { method: "GET", url: target } }] }, gw.adminToken))
    const status = async () => (await readJson(await get(`/workflow/runs/${run.run_id}`))).run?.status
    await eventually(async () => (await status()) === "succeeded", "the run to succeed", 30_000)

    const { peer } = await connectPeer(gw.url, gw.adminToken)
    closers.push(() => peer.ws.close())
    const paused = peer.next((m) => m.type === "run.paused", 20_000)
    const held = await readJson(await postJson(gw, "/workflow/run", { key: "agent:metrics2:main", steps: [{ type: "Confirm" }] }, gw.adminToken))
    await paused
    await eventually(async () => (await scrape()).value("approvals_pending") === 1, "approvals_pending to be 1")
    expect((await postJson(gw, "/workflow/cancel", { run_id: held.run_id }, gw.adminToken)).status).toBe(200)

    await eventually(async () => (await scrape()).value("workflow_runs_total", { status: "cancelled" }) === 1, "the cancelled run to be counted")
    const after = await scrape()
    expect(after.value("workflow_runs_total", { status: "queued" })).toBe(2)
    expect(after.value("workflow_runs_total", { status: "succeeded" })).toBe(1)
    expect(after.value("workflow_step_duration_seconds_count", { status: "succeeded" })).toBe(1)
    expect(after.value("workflow_step_duration_seconds_bucket", { status: "succeeded", le: "+Inf" })).toBe(1)
    expect(after.value("approvals_pending")).toBe(0)
    expect(after.help.get("workflow_runs_total")).toBe(METRICS.workflowRuns.help)
    expect(after.type.get("workflow_step_duration_seconds")).toBe("histogram")
  })

  // After the tests above every kind of family is present: labelled counters and histograms, gauges, and the
  // workflow engine's effect_cluster_* gauges (registered by effect/cluster without a description).
  it("gives every family a HELP and a TYPE line, and the scrape passes promtool check metrics", async () => {
    const exposition = await scrape()
    const families = [...exposition.type.keys()]
    expect(families).toEqual(expect.arrayContaining(["effect_cluster_entities", "effect_cluster_shards", "workflow_step_duration_seconds"]))
    expect(families.filter((name) => !(exposition.help.get(name) ?? "").trim())).toEqual([])
    for (const name of families) expect(exposition.help.has(name), name).toBe(true)
    const promtool = promtoolPath()
    if (promtool === undefined) {
      // .ci/run installs promtool (Debian's prometheus package) and sets SVC_REQUIRE_PROMTOOL; a developer machine may not have it.
      if (process.env.SVC_REQUIRE_PROMTOOL === "1") throw new Error("promtool not found and SVC_REQUIRE_PROMTOOL=1 (see .ci/run)")
      console.warn("promtool not found (PATH or SVC_PROMTOOL): the Prometheus parser check was skipped; .ci/run installs it")
      return
    }
    const result = spawnSync(promtool, ["check", "metrics"], { input: exposition.text, encoding: "utf8" })
    expect({ status: result.status, output: `${result.stdout}${result.stderr}` }).toEqual({ status: 0, output: "" })
  })
})

/** promtool from `SVC_PROMTOOL` or PATH (`.ci/run` installs it). */
const promtoolPath = (): string | undefined => {
  if (process.env.SVC_PROMTOOL) return process.env.SVC_PROMTOOL
  const found = spawnSync("sh", ["-c", "command -v promtool"], { encoding: "utf8" })
  return found.status === 0 && found.stdout.trim() !== "" ? found.stdout.trim() : undefined
}

describe("GET /metrics with SVC_METRICS=off", () => {
  let gw: TestGateway
  beforeAll(async () => {
    gw = await startGateway({ metricsEnabled: false })
  })
  afterAll(() => gw?.close())

  it("answers 404 and the gateway records nothing", async () => {
    const res = await gw.fetch("/metrics", { headers: { authorization: `Bearer ${gw.adminToken}` } })
    expect(res.status).toBe(404)
    expect(await readJson(res)).toEqual({ error: "not_found", message: "metrics are disabled (SVC_METRICS=off)" })
    expect((await gw.run(GatewayMetrics)).enabled).toBe(false)
  })
})
