/**
 * The auth-profile service on every test database, with an in-memory secret
 * store: validation (handles fit the type and exist), the transitions of
 * gateway-api.md "States and transitions", session pins, `select` (pinned,
 * else first active by created_at, with the resolved credential) and the
 * OAuth upsert.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Redacted } from "effect"
import { TestClock } from "effect/testing"
import { AuthProfiles, handlesProblem } from "../../../services/auth-profiles/AuthProfiles.ts"
import { AuthProfilesRepo } from "../../../services/auth-profiles/AuthProfilesRepo.ts"
import { testDatabases } from "../../support/databases.ts"
import { makeFakeSecrets } from "./support.ts"

const tick = TestClock.adjust("1 second")

const failure = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.map(Effect.exit(effect), (exit) => {
    if (Exit.isSuccess(exit)) throw new Error(`expected a failure, got ${JSON.stringify(exit.value)}`)
    const error = exit.cause.reasons.find((r) => r._tag === "Fail") as { error: { _tag: string; message: string } } | undefined
    if (error === undefined) throw new Error("expected a typed failure")
    return { tag: error.error._tag, message: error.error.message }
  })

describe("handlesProblem", () => {
  it("requires the handle of the type and refuses the others", () => {
    expect(handlesProblem("api_key", { api_key: "h" })).toBeUndefined()
    expect(handlesProblem("api_key", {})).toBe("secret_handles.api_key: required for a api_key profile")
    expect(handlesProblem("api_key", { api_key: "h", access_token: "t" })).toBe(
      "secret_handles.access_token: not allowed for a api_key profile"
    )
    expect(handlesProblem("oauth", { access_token: "a", refresh_token: "r" })).toBeUndefined()
    expect(handlesProblem("oauth", { refresh_token: "r" })).toBe("secret_handles.access_token: required for a oauth profile")
    expect(handlesProblem("token", { access_token: "a" })).toBeUndefined()
    expect(handlesProblem("token", { access_token: "a", refresh_token: "r" })).toBe(
      "secret_handles.refresh_token: not allowed for a token profile"
    )
  })
})

for (const db of testDatabases) {
  describe(`AuthProfiles on ${db.name}`, () => {
    const setup = () => {
      const secrets = makeFakeSecrets()
      for (const h of ["h-key-1", "h-key-2", "h-key-3", "h-access", "h-refresh"]) secrets.add(h)
      const layer = AuthProfiles.layerNoDeps.pipe(
        Layer.provideMerge(AuthProfilesRepo.layer),
        Layer.provide(secrets.layer),
        Layer.provideMerge(db.make())
      )
      return { secrets, layer }
    }

    it.effect("creates profiles after checking their handles; lists with filters; 404 for unknown ids", () => {
      const { layer } = setup()
      return Effect.gen(function*() {
        const profiles = yield* AuthProfiles
        expect(yield* failure(profiles.create({ provider: "openai", type: "api_key", secret_handles: {} }))).toEqual({
          tag: "InvalidRequest",
          message: "secret_handles.api_key: required for a api_key profile"
        })
        expect(yield* failure(profiles.create({ provider: "openai", type: "api_key", secret_handles: { api_key: "nope" } })))
          .toEqual({ tag: "InvalidRequest", message: "secret_handles.api_key: secret handle nope not found" })
        expect(
          (yield* failure(profiles.create({
            provider: "openai",
            type: "oauth",
            secret_handles: { access_token: "h-access", refresh_token: "gone" }
          }))).message
        ).toBe("secret_handles.refresh_token: secret handle gone not found")

        const first = yield* profiles.create({
          provider: "openai",
          type: "api_key",
          secret_handles: { api_key: "h-key-1" },
          labels: { team: "core" }
        })
        expect(first).toEqual({
          auth_profile_id: first.auth_profile_id,
          agent_id: "default",
          provider: "openai",
          type: "api_key",
          secret_handles: { api_key: "h-key-1" },
          labels: { team: "core" },
          status: "active",
          created_at: "1970-01-01T00:00:00.000Z",
          updated_at: "1970-01-01T00:00:00.000Z"
        })
        expect(first.auth_profile_id).toMatch(/^ap_[0-9a-f-]{36}$/)
        yield* tick
        const second = yield* profiles.create({
          agent_id: "agent.b",
          provider: "anthropic",
          type: "oauth",
          secret_handles: { access_token: "h-access", refresh_token: "h-refresh" },
          labels: {}
        })
        expect(second.labels).toBeUndefined()
        expect(yield* profiles.get(first.auth_profile_id)).toEqual(first)
        expect((yield* profiles.list({})).map((p) => p.auth_profile_id)).toEqual([first.auth_profile_id, second.auth_profile_id])
        expect(yield* profiles.list({ agent_id: "agent.b" })).toEqual([second])
        expect(yield* profiles.list({ provider: "openai" })).toEqual([first])
        expect(yield* profiles.list({ status: "disabled" })).toEqual([])
        expect(yield* failure(profiles.get("ap_unknown"))).toEqual({ tag: "NotFound", message: "auth profile ap_unknown not found" })
      }).pipe(Effect.provide(layer))
    })

    it.effect("updates labels, handles and type; validates them; 404 for unknown ids", () => {
      const { layer } = setup()
      return Effect.gen(function*() {
        const profiles = yield* AuthProfiles
        const p = yield* profiles.create({ provider: "openai", type: "api_key", secret_handles: { api_key: "h-key-1" } })
        yield* tick
        expect(yield* failure(profiles.update("ap_missing", { labels: {} }))).toEqual({
          tag: "NotFound",
          message: "auth profile ap_missing not found"
        })
        expect((yield* failure(profiles.update(p.auth_profile_id, {}))).message).toMatch(/^body: nothing to update/)
        expect((yield* failure(profiles.update(p.auth_profile_id, { secret_handles: { api_key: "nope" } }))).message)
          .toBe("secret_handles.api_key: secret handle nope not found")
        expect((yield* failure(profiles.update(p.auth_profile_id, { type: "token" }))).message)
          .toBe("secret_handles.access_token: required for a token profile")

        const labelled = yield* profiles.update(p.auth_profile_id, { labels: { env: "prod" } })
        expect(labelled).toEqual({ ...p, labels: { env: "prod" }, updated_at: "1970-01-01T00:00:01.000Z" })
        const rekeyed = yield* profiles.update(p.auth_profile_id, { secret_handles: { api_key: "h-key-2" } })
        expect(rekeyed.secret_handles).toEqual({ api_key: "h-key-2" })
        expect(rekeyed.labels).toEqual({ env: "prod" })
        const retyped = yield* profiles.update(p.auth_profile_id, { type: "token", secret_handles: { access_token: "h-access" }, labels: {} })
        expect(retyped).toMatchObject({ type: "token", secret_handles: { access_token: "h-access" } })
        expect(retyped.labels).toBeUndefined()
        expect(yield* profiles.get(p.auth_profile_id)).toEqual(retyped)
      }).pipe(Effect.provide(layer))
    })

    it.effect("disable and enable follow the transitions; repeating one answers the profile unchanged", () => {
      const { layer, secrets } = setup()
      return Effect.gen(function*() {
        const profiles = yield* AuthProfiles
        const p = yield* profiles.create({ provider: "openai", type: "api_key", secret_handles: { api_key: "h-key-1" } })
        yield* tick
        const disabled = yield* profiles.disable(p.auth_profile_id, "leaked")
        expect(disabled).toEqual({ ...p, status: "disabled", disabled_reason: "leaked", updated_at: "1970-01-01T00:00:01.000Z" })
        yield* tick
        expect(yield* profiles.disable(p.auth_profile_id, "again")).toEqual(disabled)
        const enabled = yield* profiles.enable(p.auth_profile_id)
        expect(enabled).toEqual({ ...p, updated_at: "1970-01-01T00:00:02.000Z" })
        expect(yield* profiles.enable(p.auth_profile_id)).toEqual(enabled)
        const plain = yield* profiles.disable(p.auth_profile_id)
        expect(plain.status).toBe("disabled")
        expect(plain.disabled_reason).toBeUndefined()
        secrets.revoke("h-key-1")
        expect(yield* failure(profiles.enable(p.auth_profile_id))).toEqual({
          tag: "InvalidRequest",
          message: "secret_handles.api_key: secret handle h-key-1 not found"
        })
        expect(yield* failure(profiles.disable("ap_x"))).toEqual({ tag: "NotFound", message: "auth profile ap_x not found" })
        expect((yield* failure(profiles.enable("ap_x"))).tag).toBe("NotFound")
      }).pipe(Effect.provide(layer))
    })

    it.effect("pins: set, replace, list, clear; a missing, disabled or foreign profile is refused", () => {
      const { layer } = setup()
      return Effect.gen(function*() {
        const profiles = yield* AuthProfiles
        const a = yield* profiles.create({ provider: "openai", type: "api_key", secret_handles: { api_key: "h-key-1" } })
        const b = yield* profiles.create({ provider: "openai", type: "api_key", secret_handles: { api_key: "h-key-2" } })
        const other = yield* profiles.create({ provider: "anthropic", type: "api_key", secret_handles: { api_key: "h-key-3" } })
        const pin = yield* profiles.setPin({ session_id: "s1", provider: "openai", profile_id: a.auth_profile_id })
        expect(pin).toEqual({
          agent_id: "default",
          session_id: "s1",
          provider: "openai",
          auth_profile_id: a.auth_profile_id,
          pinned_at: "1970-01-01T00:00:00.000Z"
        })
        yield* tick
        const replaced = yield* profiles.setPin({ agent_id: "default", session_id: "s1", provider: "openai", profile_id: b.auth_profile_id })
        expect(replaced).toMatchObject({ auth_profile_id: b.auth_profile_id, pinned_at: "1970-01-01T00:00:01.000Z" })
        expect(yield* profiles.listPins({})).toEqual([replaced])
        expect(yield* profiles.listPins({ session_id: "s2" })).toEqual([])
        expect(yield* profiles.listPins({ agent_id: "default", session_id: "s1", provider: "openai" })).toEqual([replaced])

        expect((yield* failure(profiles.setPin({ session_id: "s1", provider: "openai", profile_id: "ap_none" }))).message)
          .toBe("profile_id: auth profile ap_none not found")
        expect((yield* failure(profiles.setPin({ session_id: "s1", provider: "openai", profile_id: other.auth_profile_id }))).message)
          .toMatch(/^profile_id: auth profile .* belongs to agent default and provider anthropic, not default and openai$/)
        expect((yield* failure(profiles.setPin({ agent_id: "x", session_id: "s1", provider: "openai", profile_id: a.auth_profile_id }))).tag)
          .toBe("InvalidRequest")
        yield* profiles.disable(a.auth_profile_id)
        expect((yield* failure(profiles.setPin({ session_id: "s1", provider: "openai", profile_id: a.auth_profile_id }))).message)
          .toBe(`profile_id: auth profile ${a.auth_profile_id} is disabled`)
        expect(yield* profiles.listPins({})).toEqual([replaced])

        expect(yield* profiles.clearPin({ session_id: "s1", provider: "openai" })).toBe(true)
        expect(yield* profiles.clearPin({ session_id: "s1", provider: "openai" })).toBe(false)
        expect(yield* profiles.listPins({})).toEqual([])
      }).pipe(Effect.provide(layer))
    })

    it.effect("select: the pinned profile when active, else the first active by created_at, with its credential", () => {
      const { layer, secrets } = setup()
      return Effect.gen(function*() {
        const profiles = yield* AuthProfiles
        expect(yield* profiles.select("default", "s1", "openai")).toBeUndefined()
        const first = yield* profiles.create({ provider: "openai", type: "api_key", secret_handles: { api_key: "h-key-1" } })
        yield* tick
        const second = yield* profiles.create({ provider: "openai", type: "api_key", secret_handles: { api_key: "h-key-2" } })
        yield* tick
        const oauth = yield* profiles.create({
          provider: "openai",
          type: "oauth",
          secret_handles: { access_token: "h-access", refresh_token: "h-refresh" }
        })

        const unpinned = yield* profiles.select("default", "s1", "openai")
        expect(unpinned?.profile).toEqual(first)
        expect(Redacted.value(unpinned!.credential)).toBe("value-of-h-key-1")
        expect(secrets.resolutions.at(-1)).toEqual({ handle: "h-key-1", purpose: `auth-profile:${first.auth_profile_id}` })

        yield* profiles.setPin({ session_id: "s1", provider: "openai", profile_id: oauth.auth_profile_id })
        const pinned = yield* profiles.select("default", "s1", "openai")
        expect(pinned?.profile.auth_profile_id).toBe(oauth.auth_profile_id)
        expect(Redacted.value(pinned!.credential)).toBe("value-of-h-access")
        // Another session is not pinned.
        expect((yield* profiles.select("default", "s2", "openai"))?.profile.auth_profile_id).toBe(first.auth_profile_id)

        // Pinned but disabled: the first active one.
        yield* profiles.disable(oauth.auth_profile_id)
        expect((yield* profiles.select("default", "s1", "openai"))?.profile.auth_profile_id).toBe(first.auth_profile_id)
        // A credential that no longer resolves is skipped.
        secrets.revoke("h-key-1")
        expect((yield* profiles.select("default", "s1", "openai"))?.profile.auth_profile_id).toBe(second.auth_profile_id)
        yield* profiles.disable(second.auth_profile_id)
        expect(yield* profiles.select("default", "s1", "openai")).toBeUndefined()
        expect(yield* profiles.select("other-agent", "s1", "openai")).toBeUndefined()
      }).pipe(Effect.provide(layer))
    })

    it.effect("upsertOAuth creates the oauth profile, then updates and re-activates it", () => {
      const { layer } = setup()
      return Effect.gen(function*() {
        const profiles = yield* AuthProfiles
        const created = yield* profiles.upsertOAuth({ agent_id: "a1", provider: "google", access_token: "t1", refresh_token: "r1" })
        expect(created).toMatchObject({
          agent_id: "a1",
          provider: "google",
          type: "oauth",
          status: "active",
          secret_handles: { access_token: "t1", refresh_token: "r1" }
        })
        yield* profiles.disable(created.auth_profile_id, "secret t1 revoked")
        yield* tick
        const updated = yield* profiles.upsertOAuth({ agent_id: "a1", provider: "google", access_token: "t2" })
        expect(updated).toEqual({
          ...created,
          secret_handles: { access_token: "t2" },
          updated_at: "1970-01-01T00:00:01.000Z"
        })
        expect(yield* profiles.list({ agent_id: "a1" })).toEqual([updated])
      }).pipe(Effect.provide(layer))
    })
  })
}
