/**
 * The approvals subsystem's settings (issue 21 §1; layers/settings.ts): the
 * default lifetime of an approval.
 */
import { Setting } from "../../layers/settings.ts"

/** `SVC_APPROVAL_TTL_S` / `--approval-ttl`. */
export const ApprovalsSettings = Setting.group("approvals", {
  approvalTtlSeconds: Setting.integer({
    env: "SVC_APPROVAL_TTL_S",
    flag: "approval-ttl",
    default: 86_400,
    summary: "Default approval lifetime in seconds before it expires (SVC_APPROVAL_TTL_S)",
    doc: "Default lifetime of an approval in seconds (its creator may choose another); a pending approval expires at that moment."
  })
})

declare module "../../layers/settings.ts" {
  /** Enters the approvals subsystem's settings into the settings type (layers/config.ts `GatewaySettings`). */
  interface SettingsRegistry {
    readonly approvals: typeof ApprovalsSettings.settings
  }
}
