/**
 * Snapshots (docs/operations.md "Backup and restore"): export every stateful
 * table, or the ones named, in one transaction (`GET /snapshot/export`,
 * operator.admin) and download the bundle as a JSON file, the backup format
 * `svc-gateway snapshot import` and `POST /snapshot/import` read. Secrets
 * leave only as ciphertext, tokens only as digests. What was exported is
 * listed (tables and row counts). Import is not offered here: it needs
 * `SVC_SNAPSHOT_IMPORT_ENABLED=1`, empty tables and a restart (the CLI).
 */
import { useState } from "preact/hooks"
import { call } from "../../app/api.ts"
import { useAction } from "../../app/useAction.ts"
import { downloadJson, fileStamp } from "../../components/download.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import type { SnapshotBundle } from "./types.ts"

/** The snapshots page. */
export default function SnapshotsPage() {
  const [tables, setTables] = useState("")
  const action = useAction()
  const [last, setLast] = useState<{ bundle: SnapshotBundle; filename: string } | undefined>(undefined)

  const exportSnapshot = action.submit(async () => {
    const named = tables.split(",").map((t) => t.trim()).filter((t) => t !== "").join(",")
    const bundle = await call((c) => c.snapshots.export({ query: named === "" ? {} : { tables: named } }))
    const filename = `svc-snapshot-${fileStamp(bundle.exported_at)}.json`
    downloadJson(bundle, filename)
    setLast({ bundle, filename })
  })

  const exported = last ? Object.entries(last.bundle.tables) : []
  return (
    <section aria-labelledby="snapshots-title">
      <h1 id="snapshots-title">Snapshots</h1>
      <form class="panel" onSubmit={exportSnapshot} aria-labelledby="snapshot-export-title">
        <h2 id="snapshot-export-title">Export</h2>
        <p class="hint">
          Every row of the stateful tables, read in one transaction, in a portable form that imports into SQLite or
          PostgreSQL. Secrets leave only as ciphertext, tokens only as digests; keep the file as safe as the database.
        </p>
        <label>
          Tables (optional, comma-separated){" "}
          <input value={tables} autoComplete="off" spellcheck={false} placeholder="all tables" onInput={(e) => setTables((e.currentTarget as HTMLInputElement).value)} />
        </label>
        <div class="actions">
          <button type="submit" class="primary" disabled={action.busy}>{action.busy ? "Exporting…" : "Export and download"}</button>
        </div>
        <ErrorNote error={action.error} />
      </form>
      {last ? (
        <section class="panel" aria-labelledby="snapshot-last-title">
          <h2 id="snapshot-last-title">Last export</h2>
          <p role="status" class="ok">Downloaded {last.filename}.</p>
          <dl class="facts">
            <dt>Exported at</dt><dd>{last.bundle.exported_at}</dd>
            <dt>Format</dt><dd>{last.bundle.format}</dd>
            <dt>Gateway</dt><dd>{last.bundle.gateway_version} ({last.bundle.db_kind})</dd>
          </dl>
          <table class="list" aria-label="Exported tables">
            <thead><tr><th scope="col">Table</th><th scope="col">Rows</th></tr></thead>
            <tbody>
              {exported.map(([name, data]) => <tr key={name}><td><code>{name}</code></td><td>{data.rows.length}</td></tr>)}
            </tbody>
          </table>
          <div class="actions">
            <button type="button" onClick={() => downloadJson(last.bundle, last.filename)}>Download again</button>
          </div>
        </section>
      ) : null}
    </section>
  )
}
