/**
 * An attempt's artifacts (issue 24 §6): the refs its record lists (an Http
 * step's `http_trace`, a CLI step's `log`, what a node attached), each
 * downloaded through the run-scoped route `GET /runs/:runId/artifacts/:id`
 * with an `<a download>` (same origin: the session cookie goes with it; the
 * unscoped `/artifacts/:id` is refused by design, docs/artifacts.md).
 */
import type { ArtifactRef } from "./types.ts"

/** The refs among an attempt's `artifacts` (the record types them loosely). */
export const artifactRefs = (artifacts: ReadonlyArray<unknown>): ReadonlyArray<ArtifactRef> =>
  artifacts.filter((a): a is ArtifactRef =>
    typeof a === "object" && a !== null && typeof (a as { artifact_id?: unknown }).artifact_id === "string" &&
    typeof (a as { kind?: unknown }).kind === "string"
  )

const EXTENSIONS: Record<string, string> = { "application/json": "json", "text/plain": "txt", "text/html": "html", "image/png": "png" }

/** The file name a download is offered as: `<kind>-<id>.<ext by MIME type>`. */
const fileName = (ref: ArtifactRef): string =>
  `${ref.kind}-${ref.artifact_id}.${EXTENSIONS[(ref.mime_type ?? "").split(";")[0]!.trim()] ?? "bin"}`

/** The run-scoped URL of an artifact's bytes. */
export const artifactUrl = (runId: string, artifactId: string): string =>
  `/runs/${encodeURIComponent(runId)}/artifacts/${encodeURIComponent(artifactId)}`

/** The table of `refs` of attempt `attempt` of run `runId`. */
export const Artifacts = ({ runId, attempt, refs }: { runId: string; attempt: number; refs: ReadonlyArray<ArtifactRef> }) => (
  <table class="list" aria-label={`Artifacts of attempt ${attempt}`}>
    <thead>
      <tr>
        <th scope="col">Kind</th><th scope="col">Type</th><th scope="col">Size</th><th scope="col">Labels</th>
        <th scope="col">Created</th><th scope="col"><span class="sr-only">Download</span></th>
      </tr>
    </thead>
    <tbody>
      {refs.map((ref) => (
        <tr key={ref.artifact_id}>
          <td>{ref.kind}</td>
          <td>{ref.mime_type ?? "—"}</td>
          <td>{ref.size_bytes === undefined ? "—" : `${ref.size_bytes} bytes`}</td>
          <td>{ref.labels.join(", ")}</td>
          <td>{ref.created_at}</td>
          <td>
            <a href={artifactUrl(runId, ref.artifact_id)} download={fileName(ref)} title={ref.artifact_id}>
              Download<span class="sr-only"> {ref.kind} {ref.artifact_id}</span>
            </a>
          </td>
        </tr>
      ))}
    </tbody>
  </table>
)
