/** `POST /policy/check` (policy-check.md "Endpoints"): decode, evaluate, encode. No rule lives here. */
import { Effect, Layer } from "effect"
import { HttpRouter } from "effect/http"
import { PolicyService } from "../../../services/policy/PolicyService.ts"
import { makeDecoder } from "../../contracts/decode.ts"
import { PolicyCheckRequest } from "../../contracts/policy.ts"
import { decodeJsonBody } from "../body.ts"
import { json } from "../respond.ts"

const decodePolicyCheck = makeDecoder(PolicyCheckRequest)

/** Registers `POST /policy/check`: 200 `PolicyDecision`, 400 `invalid_request` naming the field. */
export const PolicyRoutes = Layer.unwrap(Effect.gen(function*() {
  const policy = yield* PolicyService
  return HttpRouter.add(
    "POST",
    "/policy/check",
    Effect.map(Effect.flatMap(decodeJsonBody(decodePolicyCheck), policy.check), (decision) => json(decision))
  )
}))
