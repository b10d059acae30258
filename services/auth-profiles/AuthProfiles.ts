/**
 * Auth profiles and session pins (gateway-api.md "Auth profiles and session
 * pins", "States and transitions"; reference §7.1, §7.11;
 * docs/auth-profiles.md).
 *
 * A profile names an agent's credential for one provider by secret handles
 * (never values). `active` → `disabled` (`disable`, or its secret handle
 * revoked: {@link AuthProfileReferences}); `disabled` → `active` (`enable`).
 * Each transition is one conditional write; asking for the state a profile
 * is already in answers it unchanged. A session may pin one active profile
 * per provider; {@link AuthProfiles} `select` is what the agent runtime
 * calls to get the credential to use.
 *
 * @module
 */
import { Clock, Context, Effect, Layer, type Redacted } from "effect"
import { randomUUID } from "node:crypto"
import { SecretReferences, SecretResolver, SecretStore } from "../secrets/SecretStore.ts"
import { InvalidRequest, NotFound } from "../shared/errors.ts"
import { type AuthProfileFilter, AuthProfilesRepo, type PinFilter, type PinKey } from "./AuthProfilesRepo.ts"
import {
  type AuthProfile,
  type AuthProfileCreateRequest,
  type AuthProfileSecretHandles,
  type AuthProfileType,
  type AuthProfileUpdateRequest,
  DEFAULT_AGENT_ID,
  type SessionProviderPin
} from "./schema.ts"
import { isoTime as iso } from "../shared/time.ts"

export type { AuthProfileRecord } from "./schema.ts"

/** What setting a pin needs (`profile_id` must name an active profile of the same agent and provider). */
export interface PinSetInput {
  readonly agent_id?: string | undefined
  readonly session_id: string
  readonly provider: string
  readonly profile_id: string
}

/** The profile `select` chose and its resolved credential (`api_key` for `api_key` profiles, else `access_token`). */
export interface SelectedAuthProfile {
  readonly profile: AuthProfile
  readonly credential: Redacted.Redacted<string>
}

const now = Effect.map(Clock.currentTimeMillis, iso)

/** The handle `select` resolves for a profile of `type`. */
export const credentialHandle = (profile: AuthProfile): string | undefined =>
  profile.type === "api_key" ? profile.secret_handles.api_key : profile.secret_handles.access_token

/**
 * The handles a type requires and allows: `api_key` → `api_key` only;
 * `oauth` → `access_token`, optionally `refresh_token`; `token` →
 * `access_token` only. Returns the problem, naming the field, or undefined.
 */
export const handlesProblem = (type: AuthProfileType, handles: AuthProfileSecretHandles): string | undefined => {
  const required = type === "api_key" ? "api_key" : "access_token"
  const allowed: ReadonlyArray<string> = type === "api_key"
    ? ["api_key"]
    : type === "oauth"
    ? ["access_token", "refresh_token"]
    : ["access_token"]
  if (handles[required] === undefined) return `secret_handles.${required}: required for a ${type} profile`
  for (const key of ["api_key", "access_token", "refresh_token"] as const) {
    if (handles[key] !== undefined && !allowed.includes(key)) {
      return `secret_handles.${key}: not allowed for a ${type} profile`
    }
  }
  return undefined
}

/** The auth profile service. Storage failures are defects. */
export class AuthProfiles extends Context.Service<AuthProfiles, {
  /** Profiles matching `filter`, by `created_at` then id. */
  readonly list: (filter: AuthProfileFilter) => Effect.Effect<ReadonlyArray<AuthProfile>>
  /** The profile; `NotFound` when unknown. */
  readonly get: (id: string) => Effect.Effect<AuthProfile, NotFound>
  /** Creates an active profile; `InvalidRequest` when a handle is missing, unknown or does not fit `type`. */
  readonly create: (input: AuthProfileCreateRequest) => Effect.Effect<AuthProfile, InvalidRequest>
  /** Updates type, handles and/or labels (see `AuthProfileUpdateRequest`); `NotFound`, or `InvalidRequest`. */
  readonly update: (id: string, patch: AuthProfileUpdateRequest) => Effect.Effect<AuthProfile, NotFound | InvalidRequest>
  /** active → disabled (with `reason`); already disabled: unchanged. `NotFound` when unknown. */
  readonly disable: (id: string, reason?: string | undefined) => Effect.Effect<AuthProfile, NotFound>
  /**
   * disabled → active (the reason is cleared); already active: unchanged.
   * `InvalidRequest` when one of its handles no longer exists (revoked);
   * `NotFound` when unknown.
   */
  readonly enable: (id: string) => Effect.Effect<AuthProfile, NotFound | InvalidRequest>
  /** Pins matching `filter`. */
  readonly listPins: (filter: PinFilter) => Effect.Effect<ReadonlyArray<SessionProviderPin>>
  /** Sets (or replaces) a pin; `InvalidRequest` when the profile is missing, disabled, or of another agent/provider. */
  readonly setPin: (input: PinSetInput) => Effect.Effect<SessionProviderPin, InvalidRequest>
  /** Clears a pin; `true` when there was one. */
  readonly clearPin: (key: { readonly agent_id?: string | undefined; readonly session_id: string; readonly provider: string }) => Effect.Effect<boolean>
  /**
   * The profile an agent's session should use for `provider`: the pinned one
   * when it is active, else the active ones of the agent and provider by
   * `created_at`; the first whose credential resolves (purpose
   * `auth-profile:<id>`), with that credential. `undefined` when none.
   */
  readonly select: (agentId: string, sessionId: string, provider: string) => Effect.Effect<SelectedAuthProfile | undefined>
  /**
   * Creates, or updates and re-activates, the `oauth` profile of
   * (`agent_id`, `provider`) with these token handles (used by the OAuth
   * callback).
   */
  readonly upsertOAuth: (input: {
    readonly agent_id: string
    readonly provider: string
    readonly access_token: string
    readonly refresh_token?: string | undefined
  }) => Effect.Effect<AuthProfile>
}>()("svc-gateway/auth-profiles/AuthProfiles") {
  /** Needs {@link AuthProfilesRepo}, `SecretStore` and `SecretResolver`. */
  static readonly layerNoDeps = Layer.effect(
    AuthProfiles,
    Effect.gen(function*() {
      const repo = yield* AuthProfilesRepo
      const store = yield* SecretStore
      const resolver = yield* SecretResolver

      const get = Effect.fn("AuthProfiles.get")((id: string) =>
        Effect.flatMap(repo.get(id), (profile) =>
          profile === undefined
            ? Effect.fail(new NotFound({ message: `auth profile ${id} not found` }))
            : Effect.succeed(profile)))

      /** Every handle must exist in the secret store (active, not revoked). */
      const checkHandles = (handles: AuthProfileSecretHandles) =>
        Effect.forEach(["api_key", "access_token", "refresh_token"] as const, (key) => {
          const handle = handles[key]
          return handle === undefined ? Effect.void : store.get(handle).pipe(
            Effect.catchTag("NotFound", () =>
              Effect.fail(new InvalidRequest({ message: `secret_handles.${key}: secret handle ${handle} not found` })))
          )
        }, { discard: true })

      const validate = Effect.fnUntraced(function*(type: AuthProfileType, handles: AuthProfileSecretHandles) {
        const problem = handlesProblem(type, handles)
        if (problem !== undefined) return yield* new InvalidRequest({ message: problem })
        yield* checkHandles(handles)
      })

      const create = Effect.fn("AuthProfiles.create")(function*(input: AuthProfileCreateRequest) {
        yield* validate(input.type, input.secret_handles)
        const at = yield* now
        return yield* repo.insert({
          auth_profile_id: `ap_${randomUUID()}`,
          agent_id: input.agent_id ?? DEFAULT_AGENT_ID,
          provider: input.provider,
          type: input.type,
          secret_handles: input.secret_handles,
          ...(input.labels !== undefined && Object.keys(input.labels).length > 0 ? { labels: input.labels } : {}),
          status: "active",
          created_at: at,
          updated_at: at
        })
      })

      const update = Effect.fn("AuthProfiles.update")(function*(id: string, patch: AuthProfileUpdateRequest) {
        const current = yield* get(id)
        if (patch.type === undefined && patch.secret_handles === undefined && patch.labels === undefined) {
          return yield* new InvalidRequest({ message: "body: nothing to update (type, secret_handles or labels)" })
        }
        const type = patch.type ?? current.type
        const handles = patch.secret_handles ?? current.secret_handles
        if (patch.type !== undefined || patch.secret_handles !== undefined) {
          const problem = handlesProblem(type, handles)
          if (problem !== undefined) return yield* new InvalidRequest({ message: problem })
        }
        if (patch.secret_handles !== undefined) yield* checkHandles(patch.secret_handles)
        const updated = yield* repo.update(id, {
          type,
          secret_handles: handles,
          labels: patch.labels ?? current.labels,
          updated_at: yield* now
        })
        if (updated === undefined) return yield* new NotFound({ message: `auth profile ${id} not found` })
        return updated
      })

      const disable = Effect.fn("AuthProfiles.disable")(function*(id: string, reason?: string) {
        const current = yield* get(id)
        if (current.status === "disabled") return current
        const changed = yield* repo.transition(id, "active", yield* now, reason)
        return changed ?? (yield* get(id))
      })

      const enable = Effect.fn("AuthProfiles.enable")(function*(id: string) {
        const current = yield* get(id)
        if (current.status === "active") return current
        yield* checkHandles(current.secret_handles)
        const changed = yield* repo.transition(id, "disabled", yield* now)
        return changed ?? (yield* get(id))
      })

      const pinKey = (input: { readonly agent_id?: string | undefined; readonly session_id: string; readonly provider: string }): PinKey => ({
        agent_id: input.agent_id ?? DEFAULT_AGENT_ID,
        session_id: input.session_id,
        provider: input.provider
      })

      const setPin = Effect.fn("AuthProfiles.setPin")(function*(input: PinSetInput) {
        const key = pinKey(input)
        const profile = yield* repo.get(input.profile_id)
        if (profile === undefined) {
          return yield* new InvalidRequest({ message: `profile_id: auth profile ${input.profile_id} not found` })
        }
        if (profile.status !== "active") {
          return yield* new InvalidRequest({ message: `profile_id: auth profile ${input.profile_id} is disabled` })
        }
        if (profile.agent_id !== key.agent_id || profile.provider !== key.provider) {
          return yield* new InvalidRequest({
            message:
              `profile_id: auth profile ${input.profile_id} belongs to agent ${profile.agent_id} and provider ${profile.provider}, not ${key.agent_id} and ${key.provider}`
          })
        }
        return yield* repo.setPin({ ...key, auth_profile_id: profile.auth_profile_id, pinned_at: yield* now })
      })

      const resolveCredential = (profile: AuthProfile) => {
        const handle = credentialHandle(profile)
        if (handle === undefined) return Effect.succeed(undefined)
        return resolver.resolve(handle, `auth-profile:${profile.auth_profile_id}`).pipe(
          Effect.map((credential): SelectedAuthProfile => ({ profile, credential })),
          Effect.catchTag("NotFound", () => Effect.succeed(undefined))
        )
      }

      const select = Effect.fn("AuthProfiles.select")(function*(agentId: string, sessionId: string, provider: string) {
        const pin = yield* repo.getPin({ agent_id: agentId, session_id: sessionId, provider })
        const candidates: Array<AuthProfile> = []
        if (pin !== undefined) {
          const pinned = yield* repo.get(pin.auth_profile_id)
          if (pinned !== undefined && pinned.status === "active") candidates.push(pinned)
        }
        const active = yield* repo.list({ agent_id: agentId, provider, status: "active" })
        for (const profile of active) if (profile.auth_profile_id !== pin?.auth_profile_id) candidates.push(profile)
        for (const candidate of candidates) {
          const selected = yield* resolveCredential(candidate)
          if (selected !== undefined) return selected
        }
        return undefined
      })

      const upsertOAuth = Effect.fn("AuthProfiles.upsertOAuth")(function*(input: {
        readonly agent_id: string
        readonly provider: string
        readonly access_token: string
        readonly refresh_token?: string | undefined
      }) {
        const handles: AuthProfileSecretHandles = {
          access_token: input.access_token,
          ...(input.refresh_token !== undefined ? { refresh_token: input.refresh_token } : {})
        }
        return yield* repo.transaction(Effect.gen(function*() {
          const existing = yield* repo.list({ agent_id: input.agent_id, provider: input.provider, type: "oauth" })
          const at = yield* now
          const current = existing[0]
          if (current === undefined) {
            return yield* repo.insert({
              auth_profile_id: `ap_${randomUUID()}`,
              agent_id: input.agent_id,
              provider: input.provider,
              type: "oauth",
              secret_handles: handles,
              status: "active",
              created_at: at,
              updated_at: at
            })
          }
          yield* repo.update(current.auth_profile_id, { type: "oauth", secret_handles: handles, labels: current.labels, updated_at: at })
          const reactivated = yield* repo.transition(current.auth_profile_id, "disabled", at)
          if (reactivated !== undefined) return reactivated
          const updated = yield* repo.get(current.auth_profile_id)
          return updated ?? (yield* Effect.die(new Error(`auth profile ${current.auth_profile_id} vanished`)))
        }))
      })

      return AuthProfiles.of({
        list: Effect.fn("AuthProfiles.list")((filter) => repo.list(filter)),
        get,
        create,
        update,
        disable,
        enable,
        listPins: Effect.fn("AuthProfiles.listPins")((filter) => repo.listPins(filter)),
        setPin,
        clearPin: Effect.fn("AuthProfiles.clearPin")((key) => repo.clearPin(pinKey(key))),
        select,
        upsertOAuth
      })
    })
  )

  /** Wired with its repository; needs `SecretStore`, `SecretResolver` and a `SqlClient` from the environment. */
  static readonly layer = AuthProfiles.layerNoDeps.pipe(Layer.provide(AuthProfilesRepo.layer))
}

/**
 * `SecretReferences` over the profiles table (the secret store calls it
 * inside its own transaction on the same `SqlClient`, so both roll back
 * together): `repoint` moves every profile handle `old` → `new`;
 * `handleRevoked` disables every active profile referencing the handle with
 * `disabled_reason` `secret <id> revoked`. Storage failures are defects (they
 * roll the caller's transaction back).
 */
export const makeAuthProfileReferences = Effect.gen(function*() {
  const repo = yield* AuthProfilesRepo
  return SecretReferences.of({
    repoint: Effect.fn("SecretReferences.repoint")((oldHandleId, newHandleId) =>
      Effect.flatMap(now, (at) => repo.repoint(oldHandleId, newHandleId, at))),
    handleRevoked: Effect.fn("SecretReferences.handleRevoked")((handleId) =>
      Effect.flatMap(now, (at) => repo.disableReferencing(handleId, `secret ${handleId} revoked`, at)))
  })
})

/** {@link makeAuthProfileReferences} as the `SecretReferences` layer; needs `AuthProfilesRepo`. */
export const AuthProfileReferences = Layer.effect(SecretReferences, makeAuthProfileReferences)

/** {@link AuthProfileReferences} with its repository; needs a `SqlClient`. */
export const AuthProfileReferencesLive = AuthProfileReferences.pipe(Layer.provide(AuthProfilesRepo.layer))
