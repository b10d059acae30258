/**
 * Canvas settings (issue 24 §3; layers/settings.ts): the largest page a
 * publish accepts (docs/canvas.md).
 */
import { Setting } from "../../layers/settings.ts"

/** `SVC_CANVAS_MAX_BYTES` / `--canvas-max-bytes`, read as `canvasMaxBytes`. */
export const CanvasSettings = Setting.group("canvas", {
  canvasMaxBytes: Setting.integer({
    env: "SVC_CANVAS_MAX_BYTES",
    flag: "canvas-max-bytes",
    default: 262_144,
    unit: "bytes",
    summary: "Largest canvas page content in UTF-8 bytes (SVC_CANVAS_MAX_BYTES)",
    doc: "Largest `html_content` of `POST /canvas/publish`, in UTF-8 bytes; larger gets 413 `payload_too_large` (the request body limit `SVC_MAX_BODY_BYTES` applies first)."
  })
})

declare module "../../layers/settings.ts" {
  /** Enters the canvas subsystem's settings into the settings type (layers/config.ts `GatewaySettings`). */
  interface SettingsRegistry {
    readonly canvas: typeof CanvasSettings.settings
  }
}
