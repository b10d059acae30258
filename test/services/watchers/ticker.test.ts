/**
 * The periodic ticker on `TestClock`: it fires the current slot of each
 * periodic watcher once per slot (not once per tick), never back-fills slots
 * that passed before it started, skips watchers without a usable interval,
 * and goes on after a failing watcher or a failing round (the failed slot
 * is tried again at the next tick).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import type { Watcher } from "../../../services/watchers/schema.ts"
import { periodicTicker } from "../../../services/watchers/ticker.ts"

const watcher = (id: number, trigger_config?: Record<string, unknown>): Watcher => ({
  id,
  plan_id: `plan-${id}`,
  trigger_type: "periodic",
  ...(trigger_config !== undefined ? { trigger_config } : {}),
  active: true,
  created_at: "1970-01-01T00:00:00.000Z",
  updated_at: "1970-01-01T00:00:00.000Z"
})

const MINUTE = 60_000
const HOUR = 3_600_000

describe("periodicTicker", () => {
  it.effect("fires each watcher's current slot once per slot", () =>
    Effect.gen(function*() {
      const fired: Array<string> = []
      const watchers = [watcher(1, { interval_ms: MINUTE }), watcher(2, { interval_ms: HOUR }), watcher(3, {}), watcher(4)]
      const fiber = yield* Effect.forkChild(periodicTicker({
        periodic: Effect.succeed(watchers),
        fire: (w, slot) => Effect.sync(() => void fired.push(`${w.id}@${slot}`))
      }))
      yield* TestClock.adjust(1)
      expect(fired).toEqual(["1@0", "2@0"])
      yield* TestClock.adjust(MINUTE - 2)
      expect(fired).toEqual(["1@0", "2@0"])
      yield* TestClock.adjust(1001)
      expect(fired).toEqual(["1@0", "2@0", `1@${MINUTE}`])
      yield* TestClock.adjust(HOUR)
      // Every minute slot the ticker saw, and the next hour.
      expect(fired.filter((f) => f.startsWith("1@")).length).toBe(62)
      expect(fired.filter((f) => f.startsWith("2@"))).toEqual(["2@0", `2@${HOUR}`])
      expect(new Set(fired).size).toBe(fired.length)
      yield* Fiber.interrupt(fiber)
    }))

  it.effect("fires only the current slot after a start: missed slots are not back-filled", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(5 * HOUR + 17 * MINUTE)
      const fired: Array<number> = []
      const fiber = yield* Effect.forkChild(periodicTicker({
        periodic: Effect.succeed([watcher(1, { interval_ms: HOUR })]),
        fire: (_, slot) => Effect.sync(() => void fired.push(slot))
      }))
      yield* TestClock.adjust(10_000)
      expect(fired).toEqual([5 * HOUR])
      yield* Fiber.interrupt(fiber)
    }))

  it.effect("a failing firing is retried at the next tick; a failing round does not stop the ticker", () =>
    Effect.gen(function*() {
      const fired: Array<string> = []
      let failures = 1
      let listFailures = 2
      const fiber = yield* Effect.forkChild(periodicTicker({
        periodic: Effect.suspend(() =>
          listFailures-- > 0 ? Effect.fail("database unavailable") : Effect.succeed([watcher(1, { interval_ms: MINUTE }), watcher(2, { interval_ms: MINUTE })])
        ),
        fire: (w, slot) =>
          w.id === 1 && failures-- > 0 ? Effect.die(new Error("boom")) : Effect.sync(() => void fired.push(`${w.id}@${slot}`))
      }))
      yield* TestClock.adjust(1)
      expect(fired).toEqual([])
      yield* TestClock.adjust(1000)
      expect(fired).toEqual([])
      yield* TestClock.adjust(1000)
      // Round 3 lists them: watcher 1 fails, watcher 2 still fires.
      expect(fired).toEqual(["2@0"])
      yield* TestClock.adjust(1000)
      expect(fired).toEqual(["2@0", "1@0"])
      yield* TestClock.adjust(1000)
      expect(fired).toEqual(["2@0", "1@0"])
      yield* Fiber.interrupt(fiber)
    }))
})
