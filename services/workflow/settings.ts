/**
 * The workflow engine's settings (issue 21 §1; layers/settings.ts): its HTTP
 * routes, `CLI` steps and their sandbox, and how many steps run at once
 * (docs/workflow-executors.md).
 */
import { Setting } from "../../layers/settings.ts"

/**
 * `SVC_ENGINE_API_ENABLED`, `SVC_CLI_ENABLED`, `SVC_CLI_UNSANDBOXED` (`0`/`1`, read as `engineApiEnabled`,
 * `cliEnabled`, `cliUnsandboxed`) and `SVC_EXEC_CONCURRENCY`.
 */
export const WorkflowSettings = Setting.group("workflow", {
  engineApi: Setting.named(
    "engineApiEnabled",
    Setting.toggle({
      env: "SVC_ENGINE_API_ENABLED",
      flag: "engine-api",
      values: ["0", "1"],
      on: "1",
      default: "0",
      summary: "1 serves the workflow engine's HTTP routes, /workflow/* (SVC_ENGINE_API_ENABLED); 0: they answer 404",
      doc: "`1` serves the workflow engine's HTTP routes (`/workflow/*`); over WebSocket `workflow.*` always works."
    })
  ),
  cliSteps: Setting.named(
    "cliEnabled",
    Setting.toggle({
      env: "SVC_CLI_ENABLED",
      flag: "cli-steps",
      values: ["0", "1"],
      on: "1",
      default: "0",
      summary: "1 lets workflow CLI steps run commands (SVC_CLI_ENABLED); 0: they fail with unsupported_action",
      doc:
        "`1` lets workflow `CLI` steps run commands (argv, no shell) in a sandbox (`bwrap` or util-linux `unshare`) that hides the gateway's processes, `$SVC_HOME` and home directory; `GET /status` `features.cli_sandbox` shows which (`docs/workflow-executors.md` \"Sandbox\"). `0`: they fail with `unsupported_action`."
    })
  ),
  cliUnsandboxed: Setting.toggle({
    env: "SVC_CLI_UNSANDBOXED",
    flag: "cli-unsandboxed",
    values: ["0", "1"],
    on: "1",
    default: "0",
    summary:
      "1 runs CLI steps even when no sandbox (bwrap, unshare) works, able to read the gateway's files and environment (SVC_CLI_UNSANDBOXED); 0: they fail with sandbox_unavailable",
    doc:
      "`1` runs `CLI` steps **without a sandbox** when none works: a step can then read the gateway's environment (admin token, database URL), `$SVC_HOME` and the master key. `0`: without a sandbox `CLI` steps fail with `sandbox_unavailable`."
  }),
  execConcurrency: Setting.integer({
    env: "SVC_EXEC_CONCURRENCY",
    flag: "exec-concurrency",
    default: 4,
    summary: "Workflow steps running at once across runs; paused runs hold none (SVC_EXEC_CONCURRENCY)",
    doc: "Workflow steps running at once across runs (paused runs hold none)."
  })
})

declare module "../../layers/settings.ts" {
  /** Enters the workflow subsystem's settings into the settings type (layers/config.ts `GatewaySettings`). */
  interface SettingsRegistry {
    readonly workflow: typeof WorkflowSettings.settings
  }
}
