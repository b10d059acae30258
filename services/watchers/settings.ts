/**
 * The watchers' settings (issue 21 §1; layers/settings.ts): whether firings
 * start runs (docs/watchers.md).
 */
import { Setting } from "../../layers/settings.ts"

/** `SVC_AUTOMATION_ENABLED` / `--automation` (`0`/`1`), read as `automationEnabled`. */
export const WatchersSettings = Setting.group("watchers", {
  automation: Setting.named(
    "automationEnabled",
    Setting.toggle({
      env: "SVC_AUTOMATION_ENABLED",
      flag: "automation",
      values: ["0", "1"],
      on: "1",
      default: "0",
      summary: "1 lets watcher firings start their runs (SVC_AUTOMATION_ENABLED); 0: firings are only recorded",
      doc: "`1` lets watcher firings start their runs (inline `steps` or a `playbook_id`); `0` records and announces firings only (`docs/watchers.md`)."
    })
  )
})

declare module "../../layers/settings.ts" {
  /** Enters the watchers subsystem's settings into the settings type (layers/config.ts `GatewaySettings`). */
  interface SettingsRegistry {
    readonly watchers: typeof WatchersSettings.settings
  }
}
