/**
 * The secret provider interface (docs/secrets.md "Providers"): where secret
 * values live. The secret store (services/secrets) keeps the handles (id,
 * agent, scope, version, revocation) in SQL and asks the configured provider,
 * a `Layer` providing {@link SecretProvider}, to store, read and erase the
 * value behind each handle version. Built in: `db` (layers/secrets/dbProvider.ts,
 * AES-256-GCM in the gateway's database) and `env` (layers/secrets/envProvider.ts,
 * environment variables). A platform team supplies its own (a vault, a cloud
 * KMS) as one more layer.
 *
 * Rules every provider keeps: a value is only ever handled as a `Redacted`;
 * no value (nor anything derived from it but ciphertext) goes into a log,
 * an error, a span or a response.
 *
 * @module
 */
import { Context, type Effect, type Option, type Redacted, Schema } from "effect"

/** One version of a secret, as the store addresses it in its provider. */
export interface SecretRef {
  /** `sec_<32 hex>`; every rotation makes a new handle (docs/secrets.md "Rotation"). */
  readonly handle_id: string
  /** The agent the secret belongs to (`default` unless chosen). */
  readonly agent_id: string
  /** What the secret is for; for `env`, the environment variable's name. */
  readonly scope: string
  /** 1 for the first secret of an (agent, provider, scope); each later store or rotation adds one. */
  readonly version: number
}

/**
 * A provider failed (storage unreachable, a stored value cannot be
 * decrypted, …). Internal: answered as 500 and logged; `message` never
 * carries a value.
 */
export class SecretProviderError extends Schema.TaggedError<SecretProviderError>()("SecretProviderError", {
  message: Schema.String
}) {}

/** A secret provider (see the module documentation). */
export class SecretProvider extends Context.Service<SecretProvider, {
  /** The name handles record and `POST /secrets {provider}` must match: `db`, `env`, `vault`, … */
  readonly kind: string
  /** Whether `POST /secrets/:id/rotate` can store a new value (false for `env`). */
  readonly rotatable: boolean
  /** `required`: `POST /secrets` needs `value` (db, vault); `forbidden`: the value lives elsewhere (env). */
  readonly value: "required" | "forbidden"
  /** Why `scope` is not acceptable to this provider (a full sentence), or `undefined` when it is. */
  readonly checkScope: (scope: string) => string | undefined
  /**
   * Stores `value` as `ref` (`undefined` when {@link value} is `forbidden`).
   * Called inside the store's SQL transaction: a provider writing through the
   * same `SqlClient` commits or rolls back with the handle; an external one
   * may leave an orphan version behind a rollback (no handle points to it).
   */
  readonly put: (ref: SecretRef, value: Redacted.Redacted<string> | undefined) => Effect.Effect<void, SecretProviderError>
  /** The value of `ref`; `None` when the provider has none (e.g. the environment variable is unset). */
  readonly resolve: (ref: SecretRef) => Effect.Effect<Option.Option<Redacted.Redacted<string>>, SecretProviderError>
  /** Erases the value of a revoked `ref` (inside the store's transaction); nothing to do is fine. */
  readonly remove: (ref: SecretRef) => Effect.Effect<void, SecretProviderError>
}>()("svc-gateway/secrets/SecretProvider") {}

/**
 * The `db` provider's master key does not match the stored secrets, or is
 * missing while encrypted secrets exist: the gateway does not start (a new
 * key would make every stored secret unreadable). `message` names the key
 * file and the key ids and says how to recover.
 */
export class SecretsKeyMismatch extends Schema.TaggedError<SecretsKeyMismatch>()("SecretsKeyMismatch", {
  message: Schema.String,
  path: Schema.String,
  /** Key ids of the stored secrets. */
  stored_key_ids: Schema.Array(Schema.String),
  /** Key id of the key file, when there is one. */
  key_id: Schema.optional(Schema.String)
}) {}

/** The master key file exists but cannot be read or is not a 32-byte key. */
export class SecretsKeyUnreadable extends Schema.TaggedError<SecretsKeyUnreadable>()("SecretsKeyUnreadable", {
  message: Schema.String,
  path: Schema.String
}) {}
