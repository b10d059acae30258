/**
 * Scrapes `GET /metrics` every few seconds and keeps the last points of the
 * status page's series: requests/s, p99 request latency (ms), workflow runs
 * by status (per scrape interval) and approvals pending.
 */
import { useEffect, useRef, useState } from "preact/hooks"
import { call } from "../../app/api.ts"
import { buckets, parseSamples, quantileBetween, type Sample, sum } from "./prometheus.ts"

/** The charted series, oldest first. */
export interface MetricSeries {
  readonly requestsPerSecond: ReadonlyArray<number>
  readonly p99Ms: ReadonlyArray<number>
  readonly approvalsPending: ReadonlyArray<number>
  /** Workflow runs that entered each status since the previous scrape. */
  readonly runsByStatus: Readonly<Record<string, ReadonlyArray<number>>>
}

const KEEP = 60
const RUN_STATUSES = ["queued", "succeeded", "failed", "cancelled"] as const
const push = (series: ReadonlyArray<number>, value: number) => [...series, value].slice(-KEEP)

/** The series, refreshed every `intervalMs`; `error` holds the last failure (e.g. 404 with SVC_METRICS=off). */
export const useMetrics = (intervalMs: number) => {
  const [series, setSeries] = useState<MetricSeries>({ requestsPerSecond: [], p99Ms: [], approvalsPending: [], runsByStatus: {} })
  const [error, setError] = useState<unknown>(undefined)
  const previous = useRef<{ at: number; samples: Array<Sample> } | undefined>(undefined)

  useEffect(() => {
    let stopped = false
    const scrape = async () => {
      try {
        const text = await call((c) => c.runtime.metrics())
        if (stopped) return
        const now = performance.now()
        const samples = parseSamples(text)
        const before = previous.current
        previous.current = { at: now, samples }
        setError(undefined)
        setSeries((s) => {
          const approvals = push(s.approvalsPending, sum(samples, "approvals_pending"))
          if (before === undefined) return { ...s, approvalsPending: approvals }
          const seconds = Math.max(0.001, (now - before.at) / 1000)
          const requests = sum(samples, "http_requests_total") - sum(before.samples, "http_requests_total")
          const p99 = quantileBetween(
            buckets(before.samples, "http_request_duration_seconds"),
            buckets(samples, "http_request_duration_seconds"),
            0.99
          )
          const runs: Record<string, ReadonlyArray<number>> = {}
          for (const status of RUN_STATUSES) {
            const delta = sum(samples, "workflow_runs_total", { status }) - sum(before.samples, "workflow_runs_total", { status })
            runs[status] = push(s.runsByStatus[status] ?? [], Math.max(0, delta))
          }
          return {
            requestsPerSecond: push(s.requestsPerSecond, Math.max(0, requests) / seconds),
            p99Ms: push(s.p99Ms, p99 === undefined || !Number.isFinite(p99) ? 0 : p99 * 1000),
            approvalsPending: approvals,
            runsByStatus: runs
          }
        })
      } catch (failure) {
        if (!stopped) setError(failure)
      }
    }
    void scrape()
    const timer = setInterval(scrape, intervalMs)
    return () => {
      stopped = true
      clearInterval(timer)
    }
  }, [intervalMs])

  return { series, error }
}
