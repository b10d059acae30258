/**
 * Provider OAuth's settings (issue 21 §1; layers/settings.ts): the OAuth
 * providers file (docs/provider-oauth.md).
 */
import { Setting } from "../../layers/settings.ts"

/** `SVC_OAUTH_PROVIDERS_CONFIG` / `--oauth-providers-config`; the value is the trimmed path or `undefined`. */
export const ProviderOAuthSettings = Setting.group("provider-oauth", {
  oauthProvidersConfig: Setting.optionalText({
    env: "SVC_OAUTH_PROVIDERS_CONFIG",
    flag: "oauth-providers-config",
    unset: "$SVC_HOME/oauth-providers.yml if present",
    summary: "OAuth providers file, YAML or JSON (SVC_OAUTH_PROVIDERS_CONFIG)",
    doc: "OAuth providers for `POST /providers/:provider/oauth/authorize` (YAML or JSON); an invalid file stops the start."
  })
})

declare module "../../layers/settings.ts" {
  /** Enters the provider-oauth subsystem's settings into the settings type (layers/config.ts `GatewaySettings`). */
  interface SettingsRegistry {
    readonly "provider-oauth": typeof ProviderOAuthSettings.settings
  }
}
