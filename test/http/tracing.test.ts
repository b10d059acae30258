/**
 * OpenTelemetry tracing (issue 14 §1; docs/operations.md "Tracing"): with
 * OTEL_EXPORTER_OTLP_ENDPOINT set, spans reach a (fake, local) OTLP/HTTP
 * collector at `<endpoint>/v1/traces` under service `svc-gateway`: one
 * server span per HTTP request named by its route template, one per
 * WebSocket request, one per workflow step attempt (activity) and the SQL
 * statements (client spans). Without it, no tracer is installed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Tracer } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { eventually } from "../support/eventually.ts"
import { type HttpTarget, startHttpTarget } from "../support/httpTarget.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { connectPeer } from "../support/wsPeer.ts"

interface OtlpSpan {
  readonly name: string
  readonly kind: number
  readonly traceId: string
  readonly attributes: ReadonlyArray<{ readonly key: string; readonly value: Record<string, unknown> }>
}

/** OTLP span kinds. */
const SERVER = 2
const CLIENT = 3

/** A fake OTLP/HTTP collector: records the JSON bodies POSTed to /v1/traces. */
const startCollector = async () => {
  const spans: Array<OtlpSpan & { readonly service: string }> = []
  const paths: Array<string> = []
  const keys: Array<string | undefined> = []
  const server = createServer((req, res) => {
    keys.push(req.headers["x-collector-key"] as string | undefined)
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      paths.push(`${req.method} ${req.url}`)
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
      for (const resourceSpans of body.resourceSpans ?? []) {
        const service = resourceSpans.resource.attributes.find((a: { key: string }) => a.key === "service.name")?.value.stringValue
        for (const scope of resourceSpans.scopeSpans) for (const span of scope.spans) spans.push({ ...span, service })
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { server, spans, paths, keys, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

const attribute = (span: OtlpSpan, key: string) => span.attributes.find((a) => a.key === key)?.value

describe("tracing with OTEL_EXPORTER_OTLP_ENDPOINT", () => {
  let collector: Awaited<ReturnType<typeof startCollector>>
  let target: HttpTarget
  let gw: TestGateway

  beforeAll(async () => {
    collector = await startCollector()
    target = await startHttpTarget(() => ({}))
    const home = mkdtempSync(join(tmpdir(), "svc-tracing-"))
    writeFileSync(join(home, "policy.yml"), "v: 1\ntools:\n  allow: [tool.http.fetch]\nnetwork_egress:\n  allow: [\"http://127.0.0.1:*\"]\n")
    // OTEL_EXPORTER_OTLP_HEADERS: sent with every export (values URI-encoded).
    process.env.OTEL_EXPORTER_OTLP_HEADERS = "x-collector-key=k%20123"
    gw = await startGateway({ otlpEndpoint: collector.url, engineApiEnabled: true, home })
    delete process.env.OTEL_EXPORTER_OTLP_HEADERS
  })
  afterAll(async () => {
    await gw?.close()
    await new Promise((resolve) => collector?.server.close(resolve))
    await target?.close()
  })

  it("exports a span per HTTP request, WS request, step attempt and SQL statement", async () => {
    const headers = { authorization: `Bearer ${gw.adminToken}` }
    expect((await gw.fetch("/status", { headers })).status).toBe(200)
    expect((await gw.fetch("/approvals/12345", { headers })).status).toBe(404)
    const { peer } = await connectPeer(gw.url, gw.adminToken)
    expect((await peer.request("ping", {})).ok).toBe(true)
    peer.ws.close()
    const url = target.url
    const run = await readJson(await postJson(gw, "/workflow/run", { key: "agent:trace:main", steps: [{ type: "Http", args: { method: "GET", url } }] }, gw.adminToken))
    await eventually(async () => (await readJson(await gw.fetch(`/workflow/runs/${run.run_id}`, { headers }))).run?.status === "succeeded", "the run", 30_000)

    // Closing the gateway flushes the exporter.
    await gw.close()
    await eventually(() => collector.spans.some((s) => s.name === "GET /status"), "the /status span to arrive")

    expect(collector.paths.every((p) => p === "POST /v1/traces")).toBe(true)
    expect(collector.keys.length).toBeGreaterThan(0)
    expect(collector.keys.every((k) => k === "k 123")).toBe(true)
    expect(new Set(collector.spans.map((s) => s.service))).toEqual(new Set(["svc-gateway"]))
    const status = collector.spans.find((s) => s.name === "GET /status")!
    expect(status.kind).toBe(SERVER)
    expect(attribute(status, "http.response.status_code")).toEqual({ intValue: 200 })
    expect(attribute(status, "http.route")).toEqual({ stringValue: "/status" })
    // Named by the template, never the raw path.
    expect(collector.spans.some((s) => s.name === "GET /approvals/:id")).toBe(true)
    expect(collector.spans.some((s) => s.name.includes("12345"))).toBe(false)
    // The status query's SQL ran inside the request's trace.
    expect(collector.spans.some((s) => s.kind === CLIENT && s.traceId === status.traceId)).toBe(true)
    const ws = collector.spans.find((s) => s.name === "ws ping")!
    expect(ws.kind).toBe(SERVER)
    expect(attribute(ws, "ws.request.type")).toEqual({ stringValue: "ping" })
    expect(collector.spans.some((s) => s.name === "step/0/attempt/1")).toBe(true)
  })
})

describe("tracing without OTEL_EXPORTER_OTLP_ENDPOINT", () => {
  it("installs no tracer", async () => {
    const gw = await startGateway()
    try {
      expect(await gw.run(Tracer.Tracer)).toBe(Tracer.nativeTracer)
    } finally {
      await gw.close()
    }
  })
})
