/**
 * In-process throughput of the pieces behind `POST /policy/check`, measured
 * with a plain timed loop (batches of calls between clock reads, a warm-up
 * first, results kept in a sink so nothing is optimised away).
 *
 * Decoder cases run through Effect's Schema JIT compiler, as the gateway does:
 * `bench/run.ts` enables it before any schema is built (like `src/main.ts`).
 *
 * @module
 */
import { Context, Effect, Layer, Result } from "effect"
import { makeDecoder } from "../services/shared/decode.ts"
import { PolicyCheckRequest } from "../services/policy/schema.ts"
import { evaluatePolicy } from "../services/policy/engine.ts"
import { PolicyService } from "../services/policy/PolicyService.ts"
import { validatePolicyCheck } from "./baseline-validate.ts"
import { SAMPLE_BODY } from "./sample.ts"
import { PolicyCheckRequestZod } from "./zod-schema.ts"

export interface InProcessResult {
  readonly name: string
  readonly opsPerSecond: number
  readonly nsPerOp: number
}

let sink: unknown

const BATCH = 1000

const timed = (fn: () => unknown, ms: number): { ops: number; elapsedMs: number } => {
  let ops = 0
  const start = performance.now()
  let now = start
  do {
    for (let i = 0; i < BATCH; i++) sink = fn()
    ops += BATCH
    now = performance.now()
  } while (now - start < ms)
  return { ops, elapsedMs: now - start }
}

const measure = (name: string, fn: () => unknown, seconds: number): InProcessResult => {
  timed(fn, Math.min(500, seconds * 250))
  const { elapsedMs, ops } = timed(fn, seconds * 1000)
  if (sink === undefined) throw new Error(`${name}: produced nothing`)
  return { name, opsPerSecond: ops / (elapsedMs / 1000), nsPerOp: (elapsedMs * 1e6) / ops }
}

/** Runs every in-process case for `seconds` each (plus a short warm-up). */
export const runInProcess = (seconds: number): ReadonlyArray<InProcessResult> => {
  const decode = makeDecoder(PolicyCheckRequest)
  const parsed: unknown = JSON.parse(SAMPLE_BODY)
  const decodedResult = decode(parsed)
  if (Result.isFailure(decodedResult)) throw new Error(`sample does not decode: ${decodedResult.failure}`)
  const decoded = decodedResult.success

  // The service is built once; each iteration only runs `check` through the Effect runtime.
  const policy = Effect.runSync(
    Effect.scoped(Effect.map(Layer.build(PolicyService.layer), (context) => Context.get(context, PolicyService)))
  )

  const decodeOrThrow = (input: unknown): PolicyCheckRequest => {
    const result = decode(input)
    if (Result.isFailure(result)) throw new Error(result.failure)
    return result.success
  }
  const validateOrThrow = (input: unknown): PolicyCheckRequest => {
    const request = validatePolicyCheck(input)
    if (request === undefined) throw new Error("invalid")
    return request
  }
  const zodParseOrThrow = (input: unknown): PolicyCheckRequest => PolicyCheckRequestZod.parse(input)

  return [
    measure("(a) evaluatePolicy", () => evaluatePolicy(decoded), seconds),
    measure("(b) makeDecoder decode (Schema JIT) + evaluatePolicy", () => evaluatePolicy(decodeOrThrow(parsed)), seconds),
    measure("(c) Effect.runSync(PolicyService.check)", () => Effect.runSync(policy.check(decoded)), seconds),
    measure("(d) hand-written validate + evaluatePolicy", () => evaluatePolicy(validateOrThrow(parsed)), seconds),
    measure(
      "(e) JSON.parse + decode + runSync(check) + JSON.stringify",
      () => JSON.stringify(Effect.runSync(policy.check(decodeOrThrow(JSON.parse(SAMPLE_BODY))))),
      seconds
    ),
    measure(
      "(f) JSON.parse + validate + evaluatePolicy + JSON.stringify",
      () => JSON.stringify(evaluatePolicy(validateOrThrow(JSON.parse(SAMPLE_BODY)))),
      seconds
    ),
    measure("(g) zod 4 parse + evaluatePolicy", () => evaluatePolicy(zodParseOrThrow(parsed)), seconds),
    measure(
      "(h) JSON.parse + zod 4 parse + evaluatePolicy + JSON.stringify",
      () => JSON.stringify(evaluatePolicy(zodParseOrThrow(JSON.parse(SAMPLE_BODY)))),
      seconds
    )
  ]
}
