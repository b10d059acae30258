/** Handlers of the node request types (src/ws/api/nodes.ts): `capability.ready`, `attempt.evidence`. */
import { Effect } from "effect"
import { Capabilities } from "../Capabilities.ts"
import { NodeDispatch } from "../NodeDispatch.ts"
import { AttemptEvidence, CapabilityReady } from "./wsApi.ts"
import { handlers } from "../../../src/ws/dispatch.ts"

/** Node handlers; need {@link Capabilities} and {@link NodeDispatch}. */
export const NodesWs = handlers(
  [CapabilityReady, AttemptEvidence],
  Effect.gen(function*() {
    const capabilities = yield* Capabilities
    const dispatch = yield* NodeDispatch
    return {
      "capability.ready": (request, connection) => Effect.asVoid(capabilities.declareReady(connection, request.capabilities)),
      "attempt.evidence": (request, connection) => dispatch.evidence(connection, request)
    }
  })
)
