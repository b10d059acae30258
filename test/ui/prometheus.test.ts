/** The status page's reading of `/metrics` (ui/src/pages/status/prometheus.ts): samples, sums, p99 between scrapes. */
import { describe, expect, it } from "vitest"
import { buckets, parseSamples, quantileBetween, sum } from "../../ui/src/pages/status/prometheus.ts"

const scrape = (requests: number, fast: number, slow: number) => `# HELP http_requests_total HTTP requests answered.
# TYPE http_requests_total counter
http_requests_total{method="GET",route="/healthz",status="200"} ${requests}
http_requests_total{method="POST",route="/plan",status="400"} 1
http_request_duration_seconds_bucket{method="GET",route="/healthz",le="0.005"} ${fast}
http_request_duration_seconds_bucket{method="GET",route="/healthz",le="0.1"} ${fast + slow}
http_request_duration_seconds_bucket{method="GET",route="/healthz",le="+Inf"} ${fast + slow}
workflow_runs_total{status="succeeded"} 3
approvals_pending 7
`

describe("status page: Prometheus exposition", () => {
  it("parses samples with labels (escaped quotes included) and skips comments", () => {
    const samples = parseSamples(`${scrape(10, 0, 0)}x{a="q\\"uote"} 2\nnot a sample line\n`)
    expect(samples.find((s) => s.name === "x")?.labels).toEqual({ a: 'q"uote' })
    expect(sum(samples, "http_requests_total")).toBe(11)
    expect(sum(samples, "http_requests_total", { status: "400" })).toBe(1)
    expect(sum(samples, "approvals_pending")).toBe(7)
    expect(sum(samples, "workflow_runs_total", { status: "failed" })).toBe(0)
  })

  it("takes p99 from the bucket holding it, between two scrapes", () => {
    const before = buckets(parseSamples(scrape(10, 100, 0)), "http_request_duration_seconds")
    expect(quantileBetween(before, buckets(parseSamples(scrape(20, 200, 0)), "http_request_duration_seconds"), 0.99)).toBe(0.005)
    expect(quantileBetween(before, buckets(parseSamples(scrape(20, 150, 50)), "http_request_duration_seconds"), 0.99)).toBe(0.1)
    expect(quantileBetween(before, before, 0.99)).toBeUndefined()
  })
})
