/**
 * Process figures sampled when `/metrics` is scraped: memory
 * (`process.memoryUsage()`) and event-loop lag (Node's
 * `perf_hooks.monitorEventLoopDelay`). Deno reports the loop delay with
 * different semantics, so there the lag gauge is left out rather than
 * reported wrongly; memory works on both.
 *
 * @module
 */
import { Effect, type Scope } from "effect"
import * as PerfHooks from "node:perf_hooks"

/** Sampling resolution of the event-loop monitor, in milliseconds. */
const RESOLUTION_MS = 10

/** What {@link processSampler} reads at each scrape. */
export interface ProcessSample {
  readonly residentMemoryBytes?: number | undefined
  readonly heapUsedBytes?: number | undefined
  /** Mean event-loop delay since the previous sample, in seconds; `undefined` where it cannot be measured. */
  readonly eventLoopLagSeconds?: number | undefined
}

const isDeno = (): boolean => typeof (globalThis as { readonly Deno?: unknown }).Deno !== "undefined"

const memory = (): Pick<ProcessSample, "residentMemoryBytes" | "heapUsedBytes"> => {
  const usage = (globalThis as { readonly process?: { readonly memoryUsage?: () => { rss: number; heapUsed: number } } }).process
    ?.memoryUsage?.()
  return usage === undefined ? {} : { residentMemoryBytes: usage.rss, heapUsedBytes: usage.heapUsed }
}

/**
 * A scoped sampler: starts the event-loop monitor (when available) and stops
 * it with the scope. Each call of the returned effect reads memory and the
 * mean loop delay since the previous call (Node's histogram measures whole
 * timer intervals, so the resolution is subtracted), then resets the
 * histogram.
 */
export const processSampler: Effect.Effect<Effect.Effect<ProcessSample>, never, Scope.Scope> = Effect.map(
  Effect.acquireRelease(
    Effect.sync(() => {
      if (isDeno() || typeof PerfHooks.monitorEventLoopDelay !== "function") return undefined
      try {
        const histogram = PerfHooks.monitorEventLoopDelay({ resolution: RESOLUTION_MS })
        histogram.enable()
        return histogram
      } catch {
        return undefined
      }
    }),
    (histogram) => Effect.sync(() => histogram?.disable())
  ),
  (histogram) =>
    Effect.sync((): ProcessSample => {
      let eventLoopLagSeconds: number | undefined
      if (histogram !== undefined && histogram.count > 0) {
        eventLoopLagSeconds = Math.max(0, histogram.mean - RESOLUTION_MS * 1e6) / 1e9
        histogram.reset()
      }
      return { ...memory(), eventLoopLagSeconds }
    })
)
