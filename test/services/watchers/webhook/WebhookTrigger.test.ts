/**
 * The webhook trigger service over fake `Watchers` and `SecretResolver`
 * (no database; the HTTP suite runs it for real on SQLite and PostgreSQL):
 * the order of the checks (watcher, config, envelope, window, secret,
 * signature, nonce), the window driven by `TestClock`, what a firing
 * records, and logs that never carry the signature, the secret or the body.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Logger, Redacted, References, Result } from "effect"
import { TestClock } from "effect/testing"
import { SecretResolver } from "../../../../services/secrets/SecretStore.ts"
import { NotFound } from "../../../../services/shared/errors.ts"
import type { FiringTrigger } from "../../../../services/watchers/automation.ts"
import type { Watcher, WatcherFiring } from "../../../../services/watchers/schema.ts"
import { Watchers } from "../../../../services/watchers/Watchers.ts"
import { nonceKey, signWebhook, WEBHOOK_HEADERS } from "../../../../services/watchers/webhook/signature.ts"
import { secretPurpose, type WebhookCall, WebhookTrigger } from "../../../../services/watchers/webhook/WebhookTrigger.ts"
import { BODY, BODY_SHA256, NONCE, NONCE_DIGEST, SECRET, SIG_S, TIMESTAMP_S } from "./vectors.ts"

const NOW = 1_700_000_000_000
const watcher = (id: number, over: Partial<Watcher> = {}): Watcher => ({
  id,
  plan_id: "plan-hook",
  trigger_type: "webhook",
  trigger_config: { secret_handle: "sec_ok" },
  active: true,
  created_at: "2023-11-14T22:13:20.000Z",
  updated_at: "2023-11-14T22:13:20.000Z",
  ...over
})

/** The fakes' state: stored watchers, secrets, firings and resolutions. */
const makeWorld = () => {
  const watchers = new Map<number, Watcher>([
    [1, watcher(1)],
    [2, watcher(2, { active: false })],
    [3, watcher(3, { trigger_type: "periodic", trigger_config: { interval_ms: 60_000 } })],
    [4, watcher(4, { trigger_config: { secret_handle: "sec_ok", max_skew_ms: 0 } })],
    [5, watcher(5, { trigger_config: {} })],
    [6, watcher(6, { trigger_config: { secret_handle: "sec_gone" } })],
    [7, watcher(7, { trigger_config: { secret_handle: "sec_empty" } })],
    [8, watcher(8, { trigger_config: { secret_handle: "sec_ok", max_skew_ms: 1000 } })]
  ])
  const secrets = new Map([["sec_ok", SECRET], ["sec_empty", ""]])
  const fired: Array<{ watcher_id: number; trigger: FiringTrigger }> = []
  const resolutions: Array<[string, string]> = []
  const digests = new Set<string>()
  const logs: Array<unknown> = []
  let runId: string | null = null

  const layer = WebhookTrigger.layer.pipe(
    Layer.provide(Layer.succeed(Watchers, Watchers.of({
      create: () => Effect.die("unused"),
      list: () => Effect.die("unused"),
      setActive: () => Effect.die("unused"),
      remove: () => Effect.die("unused"),
      firings: () => Effect.die("unused"),
      get: (id) => {
        const w = watchers.get(id)
        return w === undefined ? Effect.fail(new NotFound({ message: `watcher ${id} not found` })) : Effect.succeed(w)
      },
      fire: (w, trigger) =>
        Effect.sync(() => {
          // As the repository: a nonce's key is unique across watchers (one secret accepts a nonce once).
          const key = trigger.kind === "nonce" ? trigger.nonce_key : "?"
          if (digests.has(key)) return { fired: false, reason: "duplicate" } as const
          digests.add(key)
          fired.push({ watcher_id: w.id, trigger })
          const firing = { firing_id: `firing-${fired.length}`, run_id: runId } as unknown as WatcherFiring
          return { fired: true, firing } as const
        })
    }))),
    Layer.provide(Layer.succeed(SecretResolver, SecretResolver.of({
      resolve: () => Effect.die("the trigger resolves with resolveChecked"),
      // As the real resolver: recorded only when the check holds.
      resolveChecked: (handle, purpose, check) =>
        Effect.suspend(() => {
          const value = secrets.get(handle)
          if (value === undefined) return Effect.fail(new NotFound({ message: `secret handle ${handle} not found` }))
          const checked = check(Redacted.make(value))
          if (Result.isSuccess(checked)) resolutions.push([handle, purpose])
          return Effect.succeed(checked)
        })
    })))
  )
  const run = <A, E>(effect: Effect.Effect<A, E, WebhookTrigger>) =>
    effect.pipe(
      Effect.provide(layer),
      Effect.provide(Logger.layer([Logger.map(Logger.formatStructured, (entry) => void logs.push(entry))])),
      Effect.provide(Layer.succeed(References.MinimumLogLevel, "All"))
    )
  return { run, fired, resolutions, logs, setRunId: (id: string | null) => void (runId = id) }
}

const call = (over: Partial<WebhookCall> & { readonly set?: Record<string, string | undefined> } = {}): WebhookCall => ({
  watcher_id: over.watcher_id ?? 1,
  headers: {
    [WEBHOOK_HEADERS.signature]: `sha256=${SIG_S}`,
    [WEBHOOK_HEADERS.timestamp]: TIMESTAMP_S,
    [WEBHOOK_HEADERS.nonce]: NONCE,
    "content-type": "application/json",
    ...over.set
  },
  body: over.body ?? new TextEncoder().encode(BODY)
})

const trigger = (c: WebhookCall) => Effect.flatMap(WebhookTrigger, (t) => t.trigger(c))
const failure = (c: WebhookCall) =>
  Effect.map(Effect.flip(trigger(c)), (e) => ({ tag: e._tag, message: e.message }))

describe("WebhookTrigger", () => {
  it.effect("a valid call fires once with the nonce digest and the body's digest and length; a replay is ReplayDetected", () => {
    const world = makeWorld()
    return world.run(Effect.gen(function*() {
      yield* TestClock.setTime(NOW)
      expect(yield* trigger(call())).toEqual({ ok: true, firing_id: "firing-1" })
      expect(world.fired).toEqual([{
        watcher_id: 1,
        trigger: {
          kind: "nonce",
          nonce_digest: NONCE_DIGEST,
          nonce_key: nonceKey(SECRET, NONCE),
          trigger: { body_sha256: BODY_SHA256, body_bytes: BODY.length }
        }
      }])
      expect(world.resolutions).toEqual([["sec_ok", secretPurpose(1)]])
      expect(secretPurpose(1)).toBe("webhook:watcher-1")
      expect(yield* failure(call())).toEqual({ tag: "ReplayDetected", message: "webhook nonce has already been processed" })
    }))
  })

  it.effect("a delivery accepted by watcher 1 is a replay at watcher 8, which shares its secret (a nonce is unique per secret)", () => {
    const world = makeWorld()
    return world.run(Effect.gen(function*() {
      yield* TestClock.setTime(NOW)
      expect((yield* trigger(call())).ok).toBe(true)
      expect(yield* failure(call({ watcher_id: 8 }))).toEqual({ tag: "ReplayDetected", message: "webhook nonce has already been processed" })
      expect(world.fired.map((f) => f.watcher_id)).toEqual([1])
      // The key depends on the secret: the same nonce under another secret is another key.
      expect(nonceKey("another secret", NONCE)).not.toBe(nonceKey(SECRET, NONCE))
      expect(nonceKey(SECRET, NONCE)).not.toContain(SECRET)
    }))
  })

  it.effect("a rejected call records no resolution", () => {
    const world = makeWorld()
    return world.run(Effect.gen(function*() {
      yield* TestClock.setTime(NOW)
      expect(yield* failure(call({ set: { [WEBHOOK_HEADERS.signature]: `sha256=${"0".repeat(64)}` } })))
        .toEqual({ tag: "WebhookRejected", message: "invalid webhook signature" })
      expect(yield* failure(call({ watcher_id: 7 }))).toEqual({ tag: "WebhookRejected", message: "webhook secret not available" })
      expect(world.fired).toEqual([])
      expect(world.resolutions).toEqual([])
      expect((yield* trigger(call())).ok).toBe(true)
      expect(world.resolutions).toEqual([["sec_ok", secretPurpose(1)]])
    }))
  })

  it.effect("run_id is in the answer only when the firing started a run", () => {
    const world = makeWorld()
    world.setRunId("run-42")
    return world.run(Effect.gen(function*() {
      yield* TestClock.setTime(NOW)
      expect(yield* trigger(call())).toEqual({ ok: true, firing_id: "firing-1", run_id: "run-42" })
    }))
  })

  it.effect("checks in order: watcher (404), config (503), envelope, window (401), secret (503 / 401), signature (401)", () => {
    const world = makeWorld()
    return world.run(Effect.gen(function*() {
      yield* TestClock.setTime(NOW)
      const notFound = { tag: "NotFound", message: "webhook watcher not found" }
      const noEnvelope = { set: { [WEBHOOK_HEADERS.nonce]: undefined } }
      // An unknown, inactive or periodic watcher is 404 even with no envelope at all.
      for (const id of [99, 2, 3]) expect(yield* failure(call({ watcher_id: id, ...noEnvelope }))).toEqual(notFound)
      // A config that no longer fits is 503 before the envelope is read.
      for (const id of [4, 5]) {
        const e = yield* failure(call({ watcher_id: id, ...noEnvelope }))
        expect(e.tag).toBe("WebhookMisconfigured")
        expect(e.message).toMatch(/^webhook watcher is misconfigured: /)
      }
      expect(yield* failure(call(noEnvelope))).toEqual({ tag: "WebhookRejected", message: "missing or invalid webhook signature envelope" })
      // A stale timestamp is rejected before the secret is resolved.
      yield* TestClock.adjust(300_001)
      expect(yield* failure(call({ watcher_id: 6 }))).toEqual({ tag: "WebhookRejected", message: "webhook timestamp outside allowed replay window" })
      expect(world.resolutions).toEqual([])
      yield* TestClock.setTime(NOW)
      expect(yield* failure(call({ watcher_id: 6 }))).toEqual({ tag: "WebhookMisconfigured", message: "webhook secret handle cannot be resolved" })
      expect(yield* failure(call({ watcher_id: 7 }))).toEqual({ tag: "WebhookRejected", message: "webhook secret not available" })
      expect(yield* failure(call({ body: new TextEncoder().encode(`${BODY}\n`) }))).toEqual({ tag: "WebhookRejected", message: "invalid webhook signature" })
      expect(world.fired).toEqual([])
    }))
  })

  it.effect("the window follows the Clock: default 300000 ms both ways, a watcher's own max_skew_ms", () => {
    const world = makeWorld()
    const at = (ms: number, nonce: string, id = 1) => {
      const timestamp = String(ms)
      return call({
        watcher_id: id,
        set: {
          [WEBHOOK_HEADERS.timestamp]: timestamp,
          [WEBHOOK_HEADERS.nonce]: nonce,
          [WEBHOOK_HEADERS.signature]: signWebhook(SECRET, timestamp, nonce, BODY)
        }
      })
    }
    return world.run(Effect.gen(function*() {
      yield* TestClock.setTime(NOW)
      expect((yield* trigger(at(NOW - 300_000, "past-edge"))).ok).toBe(true)
      expect((yield* trigger(at(NOW + 300_000, "future-edge"))).ok).toBe(true)
      expect((yield* failure(at(NOW - 300_001, "past-out"))).message).toBe("webhook timestamp outside allowed replay window")
      expect((yield* failure(at(NOW + 300_001, "future-out"))).message).toBe("webhook timestamp outside allowed replay window")
      expect((yield* trigger(at(NOW - 1000, "custom-edge", 8))).ok).toBe(true)
      expect((yield* failure(at(NOW - 1001, "custom-out", 8))).tag).toBe("WebhookRejected")
      // The same signed call, once the clock moved past its window.
      const late = at(NOW, "late")
      yield* TestClock.adjust(300_001)
      expect((yield* failure(late)).message).toBe("webhook timestamp outside allowed replay window")
    }))
  })

  it.effect("logs the watcher and the outcome, never the signature, the secret, the nonce or the body", () => {
    const world = makeWorld()
    return world.run(Effect.gen(function*() {
      yield* TestClock.setTime(NOW)
      yield* trigger(call())
      yield* Effect.flip(trigger(call()))
      yield* Effect.flip(trigger(call({ set: { [WEBHOOK_HEADERS.signature]: `sha256=${"0".repeat(64)}`, [WEBHOOK_HEADERS.nonce]: "n2" } })))
      const text = JSON.stringify(world.logs)
      expect(text).toContain("webhook fired")
      expect(text).toContain("\"reason\":\"replay\"")
      expect(text).toContain("\"reason\":\"signature\"")
      expect(text).toContain("\"watcher_id\":1")
      for (const secret of [SECRET, SIG_S, NONCE, "push"]) expect(text).not.toContain(secret)
    }))
  })
})
