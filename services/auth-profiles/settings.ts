/**
 * Auth profiles' settings (issue 21 §1; layers/settings.ts): whether the
 * subsystem is served (docs/auth-profiles.md).
 */
import { Setting } from "../../layers/settings.ts"

/** `SVC_AUTH_PROFILES` / `--auth-profiles` (`on`/`off`), read as `authProfilesEnabled`. */
export const AuthProfilesSettings = Setting.group("auth-profiles", {
  authProfiles: Setting.named(
    "authProfilesEnabled",
    Setting.toggle({
      env: "SVC_AUTH_PROFILES",
      flag: "auth-profiles",
      values: ["on", "off"],
      on: "on",
      default: "on",
      summary: "Auth profiles and session pins (SVC_AUTH_PROFILES); off removes their routes (404)",
      doc: "`off` removes the auth-profile, pin and OAuth routes."
    })
  )
})

declare module "../../layers/settings.ts" {
  /** Enters the auth-profiles subsystem's settings into the settings type (layers/config.ts `GatewaySettings`). */
  interface SettingsRegistry {
    readonly "auth-profiles": typeof AuthProfilesSettings.settings
  }
}
