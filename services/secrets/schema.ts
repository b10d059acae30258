/**
 * Wire schemas of secrets (gateway-api.md "Secrets"; reference §7.1). A
 * handle names a stored secret; the value itself never leaves the process.
 *
 * @module
 */
import { Schema } from "effect"

/** A secret handle: what HTTP returns and what other records reference. Never carries the value. */
export const SecretHandle = Schema.Struct({
  handle_id: Schema.String,
  provider: Schema.String,
  scope: Schema.String,
  created_at: Schema.String
}).annotate({ identifier: "SecretHandle" })
export type SecretHandle = typeof SecretHandle.Type

export { AgentId, DEFAULT_AGENT_ID } from "../shared/agent.ts"

/** Largest secret value: 64 KiB of characters. */
export const MAX_SECRET_VALUE = 65_536

/**
 * A secret value on the wire: a string, wrapped in `Redacted` as it is
 * decoded. Its errors never echo the input (they would otherwise quote it).
 */
export const SecretValue = Schema.RedactedFromValue(
  Schema.String.annotate({ message: "expected a string" }).check(
    Schema.isMaxLength(MAX_SECRET_VALUE, { message: `must be at most ${MAX_SECRET_VALUE} characters` })
  )
)

/** Body of `POST /secrets`. */
export const SecretStoreRequest = Schema.Struct({
  scope: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(256, { expected: "1 to 256 characters" })),
  value: Schema.optionalKey(SecretValue),
  provider: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(64, { expected: "at most 64 characters" })))
}).annotate({ identifier: "SecretStoreRequest" })
export type SecretStoreRequest = typeof SecretStoreRequest.Type

/** Body of `POST /secrets/:id/rotate`. */
export const SecretRotateRequest = Schema.Struct({ value: SecretValue }).annotate({ identifier: "SecretRotateRequest" })
export type SecretRotateRequest = typeof SecretRotateRequest.Type

/** `POST /secrets` → 201. */
export const SecretStoreResponse = Schema.Struct({ handle: SecretHandle })
/** `GET /secrets` → 200. */
export const SecretListResponse = Schema.Struct({ handles: Schema.Array(SecretHandle) })
/** `DELETE /secrets/:id` → 200. */
export const SecretRevokeResponse = Schema.Struct({ revoked: Schema.Literal(true) })
/** `POST /secrets/:id/rotate` → 201: the old handle is revoked, `handle` is the new one. */
export const SecretRotateResponse = Schema.Struct({ revoked: Schema.Boolean, handle: SecretHandle })
export type SecretRotateResponse = typeof SecretRotateResponse.Type
