/**
 * Waiting for a condition in integration tests, without betting on timing:
 * `eventually` polls until the condition holds and only fails after a
 * generous deadline (10 s by default), so a busy machine slows a test down
 * but never fails it. Time itself, where it is what a test checks, is driven
 * with `TestClock` (or vitest's fake timers for the plain-TypeScript SDK).
 */

// Captured at load, so polling keeps working while a test fakes the timers (vi.useFakeTimers).
const realSetTimeout = globalThis.setTimeout

/** Polls `check` (sync or async) every 10 ms until it returns true; rejects after `timeoutMs` naming `what`. */
export const eventually = async (
  check: () => boolean | Promise<boolean>,
  what = "a condition",
  timeoutMs = 10_000
): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((resolve) => realSetTimeout(resolve, 10))
  }
}
