/**
 * The gateway's wire contracts in one module (`svc-gateway/contracts`): the
 * schemas and constants of the HTTP routes (policy check, authentication,
 * device tokens, nodes), the WebSocket API (envelopes, handshake, close codes), the
 * device-identity proof, and the boundary decoding helpers.
 *
 * ```ts
 * import { makeDecoder, PolicyCheckRequest, WS_SUBPROTOCOL } from "svc-gateway/contracts"
 *
 * const decode = makeDecoder(PolicyCheckRequest)
 * ```
 *
 * The modules export disjoint names, so a star re-export of each is
 * unambiguous (TypeScript reports a clash as TS2308 should one appear).
 *
 * @module
 */
export * from "../../services/auth/schema.ts"
export * from "../../services/shared/decode.ts"
export * from "../../services/ws-sessions/deviceIdentity.ts"
export * from "../../services/policy/schema.ts"
export * from "../../services/policy-bundle/schema.ts"
export * from "../../services/planner/schema.ts"
export * from "../../services/approvals/schema.ts"
export {
  AuthProfile,
  AuthProfileCreateRequest,
  AuthProfileCreateResponse,
  AuthProfileDisableRequest,
  AuthProfileEnableRequest,
  AuthProfileListResponse,
  type AuthProfileRecord,
  AuthProfileResponse,
  AuthProfileSecretHandles,
  AuthProfileStatus,
  AuthProfileType,
  AuthProfileUpdateRequest,
  SessionProviderPin,
  SessionProviderPinClearResponse,
  SessionProviderPinListResponse,
  SessionProviderPinSetRequest,
  SessionProviderPinSetResponse
} from "../../services/auth-profiles/schema.ts"
export * from "../../services/pairing/schema.ts"
export * from "../../services/nodes/schema.ts"
export * from "../../services/ws-sessions/schema.ts"
export * from "../../services/snapshots/schema.ts"
