/**
 * In-memory stand-ins for the secret store and resolver (the real ones live in
 * services/secrets): handles are added with `add`, revoked with `revoke`, and
 * every resolution is recorded.
 */
import { Effect, Layer, Redacted } from "effect"
import { SecretResolver, SecretStore } from "../../../services/secrets/SecretStore.ts"
import { InvalidRequest, NotFound } from "../../../services/shared/errors.ts"

/** A fake secret store: a map of handle id → value. */
export const makeFakeSecrets = () => {
  const values = new Map<string, string>()
  const resolutions: Array<{ readonly handle: string; readonly purpose: string }> = []
  const missing = (id: string) => new NotFound({ message: `secret handle ${id} not found` })
  const layer = Layer.mergeAll(
    Layer.succeed(SecretStore, SecretStore.of({
      store: () => Effect.fail(new InvalidRequest({ message: "fake store: use add()" })),
      get: (id) =>
        values.has(id)
          ? Effect.succeed({ handle_id: id, provider: "fake", scope: `scope-${id}`, created_at: "2026-01-01T00:00:00.000Z" })
          : Effect.fail(missing(id))
    })),
    Layer.succeed(SecretResolver, SecretResolver.of({
      resolve: (id, purpose) =>
        Effect.suspend(() => {
          const value = values.get(id)
          if (value === undefined) return Effect.fail(missing(id))
          resolutions.push({ handle: id, purpose })
          return Effect.succeed(Redacted.make(value))
        }),
      resolveChecked: () => Effect.die("unused by auth profiles")
    }))
  )
  return {
    layer,
    resolutions,
    add: (id: string, value = `value-of-${id}`) => void values.set(id, value),
    revoke: (id: string) => void values.delete(id)
  }
}
