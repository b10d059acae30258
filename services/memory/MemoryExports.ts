/**
 * Memory exports (issue 24 §1; gateway-api.md "Memory exports"; docs/memory.md
 * "Exports"): `memory.export` writes every item of one agent that a filter
 * matches (and, when asked, the agent's tombstones) into one JSON artifact
 * (services/artifacts, labels {@link MEMORY_EXPORT_LABELS}, kind `file`,
 * `application/json`, no run link), announced as `memory.export.completed`
 * and recorded in the `gateway.memory` audit chain (`memory.exported`: ids
 * and counts, never content). `GET /memory/exports/:id` serves it back:
 * 400 for an id that is not an artifact id, 404 for an unknown artifact or
 * one without the export labels (another producer's artifact is never served
 * here), its bytes deleted by retention included.
 *
 * The items are read in pages of {@link EXPORT_PAGE} (the order of
 * `memory.list`: newest first), so a large export never issues one
 * unbounded query.
 *
 * @module
 */
import { Clock, Context, Effect, Layer } from "effect"
import { Artifacts } from "../artifacts/Artifacts.ts"
import { Decision } from "../domain-events/decisions.ts"
import { DomainEvents } from "../domain-events/DomainEvents.ts"
import { DEFAULT_AGENT_ID } from "../shared/agent.ts"
import type { InvalidRequest, NotFound } from "../shared/errors.ts"
import { isUuid } from "../shared/schemas.ts"
import { isoTime } from "../shared/time.ts"
import { EventBus } from "../ws-sessions/EventBus.ts"
import { exportNotFound, invalidExportId } from "./errors.ts"
import { MemoryExportCompleted } from "./events.ts"
import {
  MEMORY_EXPORT_LABELS,
  type MemoryExportDocument,
  type MemoryExportRequest,
  type MemoryExportResult
} from "./exportSchema.ts"
import { MEMORY_CHAIN } from "./Memory.ts"
import { MemoryRepo } from "./MemoryRepo.ts"
import { toItem, toTombstone } from "./records.ts"
import type { MemoryItem } from "./schema.ts"

/** Items read per query while exporting. */
export const EXPORT_PAGE = 500

/** An export's download: its bytes and the file name of `Content-Disposition`. */
export interface MemoryExportDownload {
  readonly bytes: Uint8Array
  /** `svc-memory-export-<id>.json`. */
  readonly filename: string
}

/** The file name a download of export `id` is offered under. */
export const exportFilename = (id: string): string => `svc-memory-export-${id}.json`

/** Memory exports: writing them as artifacts and reading them back. */
export class MemoryExports extends Context.Service<MemoryExports, {
  /** `memory.export`: stores the export artifact and answers `{v, artifact_id}`; `memory.export.completed` after. */
  readonly export: (request: MemoryExportRequest) => Effect.Effect<MemoryExportResult>
  /** `GET /memory/exports/:id`: the export's bytes; `InvalidRequest` for a malformed id, `NotFound` otherwise. */
  readonly download: (id: string) => Effect.Effect<MemoryExportDownload, InvalidRequest | NotFound>
}>()("svc-gateway/memory/MemoryExports") {
  /** Needs {@link MemoryRepo}, `Artifacts`, `EventBus` and `DomainEvents`. */
  static readonly layerNoDeps = Layer.effect(
    MemoryExports,
    Effect.gen(function*() {
      const repo = yield* MemoryRepo
      const artifacts = yield* Artifacts
      const events = yield* EventBus
      const domainEvents = yield* DomainEvents

      /** Every item of the agent the filter matches, newest first. */
      const allItems = Effect.fnUntraced(function*(agentId: string, request: MemoryExportRequest) {
        const items: Array<MemoryItem> = []
        let after: { readonly createdAt: string; readonly id: string } | undefined
        while (true) {
          const rows = yield* repo.list({ agentId, filter: request.filter }, after, EXPORT_PAGE)
          for (const row of rows) items.push(toItem(row))
          if (rows.length < EXPORT_PAGE) return items
          const last = rows[rows.length - 1]
          after = { createdAt: last.created_at, id: last.memory_item_id }
        }
      })

      const exportItems = Effect.fn("MemoryExports.export")(function*(request: MemoryExportRequest) {
        const agent_id = request.filter?.agent_id ?? DEFAULT_AGENT_ID
        const include_tombstones = request.include_tombstones === true
        const exported_at = isoTime(yield* Clock.currentTimeMillis)
        const items = yield* allItems(agent_id, request)
        const tombstones = include_tombstones ? (yield* repo.tombstones(agent_id)).map(toTombstone) : undefined
        const document: MemoryExportDocument = {
          v: 1,
          exported_at,
          filter: { ...request.filter, agent_id },
          include_tombstones,
          items,
          ...(tombstones !== undefined ? { tombstones } : {})
        }
        const ref = yield* artifacts.put({
          kind: "file",
          bytes: new TextEncoder().encode(JSON.stringify(document)),
          mime_type: "application/json",
          labels: MEMORY_EXPORT_LABELS,
          metadata: { agent_id, item_count: items.length, tombstone_count: tombstones?.length ?? 0, exported_at },
          sensitivity: items.some((item) => item.sensitivity === "sensitive") ? "sensitive" : "normal"
        })
        const counts = { agent_id, item_count: items.length, tombstone_count: tombstones?.length ?? 0 }
        yield* domainEvents.publish(Decision, {
          chain: MEMORY_CHAIN,
          action: { type: "memory.exported", artifact_id: ref.artifact_id, include_tombstones, ...counts }
        })
        yield* events.publish(MemoryExportCompleted, { v: 1, artifact_id: ref.artifact_id, ...counts })
        return { v: 1, artifact_id: ref.artifact_id } as const
      })

      const download = Effect.fn("MemoryExports.download")(function*(id: string) {
        if (!isUuid(id)) return yield* invalidExportId()
        const found = yield* artifacts.read(id.toLowerCase())
        if (found === undefined || !MEMORY_EXPORT_LABELS.every((label) => found.artifact.labels.includes(label))) {
          return yield* exportNotFound()
        }
        return { bytes: found.bytes, filename: exportFilename(found.artifact.artifact_id) }
      })

      return MemoryExports.of({ export: exportItems, download })
    })
  )

  /** Wired for the gateway: storage ({@link MemoryRepo}), the artifact store and the event bus; needs a `SqlClient` and `DomainEvents`. */
  static readonly layer = MemoryExports.layerNoDeps.pipe(
    Layer.provide(MemoryRepo.layer),
    Layer.provide(Artifacts.layer),
    Layer.provide(EventBus.layer)
  )
}
