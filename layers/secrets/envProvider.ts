/**
 * The `env` secret provider (docs/secrets.md): a handle's scope names an
 * environment variable, read when the handle is resolved (so a changed
 * variable takes effect without touching the handle). Nothing is stored but
 * the handle; the value never passes through the gateway's API, so
 * `POST /secrets` takes no `value` and rotation is refused (change the
 * variable instead).
 *
 * @module
 */
import { Effect, Layer, Option, Redacted } from "effect"
import { SecretProvider } from "./SecretProvider.ts"

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

/** The `env` provider over `environment` (default `process.env`). */
export const makeEnvProvider = (environment: Readonly<Record<string, string | undefined>> = process.env) =>
  SecretProvider.of({
    kind: "env",
    rotatable: false,
    value: "forbidden",
    checkScope: (scope) =>
      NAME.test(scope) ? undefined : "scope must name an environment variable (letters, digits and _, not starting with a digit)",
    put: Effect.fn("SecretProvider.put")(() => Effect.void),
    resolve: Effect.fn("SecretProvider.resolve")((ref) =>
      Effect.sync(() => {
        const value = environment[ref.scope]
        return value === undefined ? Option.none() : Option.some(Redacted.make(value))
      })),
    remove: Effect.fn("SecretProvider.remove")(() => Effect.void)
  })

/** The `env` provider over `process.env`. */
export const EnvSecretProvider = Layer.succeed(SecretProvider, makeEnvProvider())
