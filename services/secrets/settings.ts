/**
 * The secrets subsystem's settings (issue 21 §1; layers/settings.ts): the
 * provider and the `db` provider's master key (docs/secrets.md).
 */
import { Setting } from "../../layers/settings.ts"

/** `SVC_SECRET_PROVIDER` (`db`/`env`) and `SVC_SECRETS_MASTER_KEY_PATH` (trimmed path or `undefined`). */
export const SecretsSettings = Setting.group("secrets", {
  secretProvider: Setting.choice({
    env: "SVC_SECRET_PROVIDER",
    flag: "secret-provider",
    values: ["db", "env"],
    default: "db",
    summary: "Secret provider: db (encrypted in the database) or env (environment variables) (SVC_SECRET_PROVIDER)",
    doc:
      "Where secret values live: `db` (encrypted in the database under the master key) or `env` (a handle names an environment variable)."
  }),
  secretsMasterKeyPath: Setting.optionalText({
    env: "SVC_SECRETS_MASTER_KEY_PATH",
    flag: "secrets-master-key-path",
    unset: "$SVC_HOME/secrets.master.key",
    summary: "Master key of the db secret provider; generated on first start (SVC_SECRETS_MASTER_KEY_PATH)",
    doc:
      "The 32-byte master key of the `db` provider (generated 0600 on first start). Back it up: without it stored secrets cannot be read, and the gateway refuses to start."
  })
})

declare module "../../layers/settings.ts" {
  /** Enters the secrets subsystem's settings into the settings type (layers/config.ts `GatewaySettings`). */
  interface SettingsRegistry {
    readonly secrets: typeof SecretsSettings.settings
  }
}
