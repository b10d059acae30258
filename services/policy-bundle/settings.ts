/**
 * The policy bundle's settings (issue 21 §1; layers/settings.ts): the
 * deployment bundle file (docs/policy-bundle.md).
 */
import { Setting } from "../../layers/settings.ts"

/** `SVC_POLICY_BUNDLE_PATH` / `--policy-bundle-path`; the value is the trimmed path or `undefined` (the built-in bundle). */
export const PolicyBundleSettings = Setting.group("policy-bundle", {
  policyBundlePath: Setting.optionalText({
    env: "SVC_POLICY_BUNDLE_PATH",
    flag: "policy-bundle-path",
    unset: "unset: the built-in bundle",
    summary: "Deployment policy bundle, YAML or JSON (SVC_POLICY_BUNDLE_PATH)",
    doc:
      "Deployment policy bundle (YAML or JSON). Set but unreadable or invalid: the gateway does not start. An agent bundle at `$SVC_HOME/policy.yml`, `policy.yaml` or `policy.json` is merged in (most restrictive wins)."
  })
})

declare module "../../layers/settings.ts" {
  /** Enters the policy-bundle subsystem's settings into the settings type (layers/config.ts `GatewaySettings`). */
  interface SettingsRegistry {
    readonly "policy-bundle": typeof PolicyBundleSettings.settings
  }
}
