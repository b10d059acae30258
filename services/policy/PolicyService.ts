/**
 * `PolicyService`: the single entry point to the policy evaluation
 * (spec `policy-check.md`, "POST /policy/check"). The HTTP route, the
 * in-process planner and library users all go through `check`, which is a
 * thin, total wrapper over the pure engine (`evaluatePolicy`): it never fails
 * and needs nothing from the environment (the evaluation is stateless).
 *
 * Input must already be decoded (see `PolicyCheckRequest` and
 * `makeDecoder` in `src/contracts/`); structural validation (HTTP 400) is the
 * caller's job.
 *
 * @module
 */
import { Context, Effect, Layer } from "effect"
import type { PolicyCheckRequest, PolicyDecision } from "./schema.ts"
import { evaluatePolicy } from "./engine.ts"

/** Evaluates a decoded policy check request. */
export class PolicyService extends Context.Service<PolicyService, {
  readonly check: (request: PolicyCheckRequest) => Effect.Effect<PolicyDecision>
}>()("svc-gateway/policy/PolicyService") {
  /** Static-rules implementation backed by the pure engine; no dependencies. */
  static readonly layer: Layer.Layer<PolicyService> = Layer.succeed(
    PolicyService,
    PolicyService.of({
      // `Effect.sync` keeps evaluation lazy and turns an unexpected throw (e.g.
      // a hand-built request that bypassed decoding) into a defect.
      check: /* hot path (every request or message): no span, docs/performance.md "Spans on the hot path" */ ((request) => Effect.sync(() => evaluatePolicy(request)))
    })
  )
}
