/**
 * The snapshots' settings (issue 21 §1; layers/settings.ts): whether
 * `POST /snapshot/import` imports (docs/operations.md "Backup and restore").
 */
import { Setting } from "../../layers/settings.ts"

/** `SVC_SNAPSHOT_IMPORT_ENABLED` / `--snapshot-import` (`0`/`1`), read as `snapshotImportEnabled`. */
export const SnapshotsSettings = Setting.group("snapshots", {
  snapshotImport: Setting.named(
    "snapshotImportEnabled",
    Setting.toggle({
      env: "SVC_SNAPSHOT_IMPORT_ENABLED",
      flag: "snapshot-import",
      values: ["0", "1"],
      on: "1",
      default: "0",
      summary: "1 lets POST /snapshot/import import a bundle into empty tables (SVC_SNAPSHOT_IMPORT_ENABLED); 0: it answers 403",
      doc:
        "`1` lets `POST /snapshot/import` import a snapshot bundle into empty tables (403 `disabled` otherwise). The CLI `svc-gateway snapshot import` does not need it (`docs/operations.md` \"Backup and restore\")."
    })
  )
})

declare module "../../layers/settings.ts" {
  /** Enters the snapshots subsystem's settings into the settings type (layers/config.ts `GatewaySettings`). */
  interface SettingsRegistry {
    readonly snapshots: typeof SnapshotsSettings.settings
  }
}
