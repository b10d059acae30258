/**
 * The closed loop of the workflow benchmark: K workers, each starting its
 * next run as soon as its previous one finished, for a warm-up and then a
 * measured window. Shared by the gateway driver (`workflow-load.ts`) and the
 * plain-loop baseline (`workflow-baseline.ts`).
 *
 * @module
 */

/** What one measured window gave. */
export interface LoopResult {
  /** Runs that finished successfully inside the window. */
  readonly completed: number
  /** Runs that ended otherwise (failed, cancelled, timed out, threw) inside the window. */
  readonly failed: number
  /** Length of the window, seconds. */
  readonly seconds: number
  readonly runsPerSecond: number
  /** Start-to-finish latency of the runs completed in the window, ms. */
  readonly p50Ms: number
  readonly p99Ms: number
  readonly meanMs: number
  /** First failure messages (at most 5). */
  readonly errors: ReadonlyArray<string>
}

/** Hooks around the measured window (e.g. counter snapshots). */
export interface LoopHooks {
  readonly onWindowStart?: () => Promise<void> | void
  readonly onWindowEnd?: () => Promise<void> | void
}

/** The value at percentile `p` of sorted values (nearest rank). */
export const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]

/**
 * Runs `runOne(worker)` in `k` closed loops: `warmupMs`, then a measured
 * window of `durationMs`. `runOne` resolves `true` for a run that
 * succeeded, `false` or a thrown error otherwise. Stops starting runs at the
 * end of the window and waits for those in flight.
 */
export const closedLoop = async (
  k: number,
  warmupMs: number,
  durationMs: number,
  runOne: (worker: number) => Promise<boolean>,
  hooks: LoopHooks = {}
): Promise<LoopResult> => {
  const latencies: Array<number> = []
  const errors: Array<string> = []
  let failed = 0
  let windowStart = Number.POSITIVE_INFINITY
  let windowEnd = Number.POSITIVE_INFINITY
  let stop = false
  const inWindow = (t: number) => t >= windowStart && t <= windowEnd

  const worker = async (index: number) => {
    while (!stop) {
      const started = performance.now()
      let ok = false
      let message: string | undefined
      try {
        ok = await runOne(index)
      } catch (error) {
        message = error instanceof Error ? error.message : String(error)
      }
      const finished = performance.now()
      if (!inWindow(finished)) continue
      if (ok) latencies.push(finished - started)
      else {
        failed++
        if (errors.length < 5) errors.push(message ?? "run did not succeed")
      }
    }
  }

  const workers = Array.from({ length: k }, (_, i) => worker(i))
  await new Promise((resolve) => setTimeout(resolve, warmupMs))
  await hooks.onWindowStart?.()
  windowStart = performance.now()
  await new Promise((resolve) => setTimeout(resolve, durationMs))
  windowEnd = performance.now()
  await hooks.onWindowEnd?.()
  stop = true
  await Promise.all(workers)

  const seconds = (windowEnd - windowStart) / 1000
  latencies.sort((a, b) => a - b)
  return {
    completed: latencies.length,
    failed,
    seconds,
    runsPerSecond: latencies.length / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    meanMs: latencies.length === 0 ? Number.NaN : latencies.reduce((a, b) => a + b, 0) / latencies.length,
    errors
  }
}
