/**
 * The `node_pairings` table on every test database: migrations apply once,
 * rows round-trip to the contract (never the token digest), creation on
 * connect is insert-if-absent, every transition is one conditional write,
 * and a token digest belongs to at most one pairing.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { migrationsTable } from "../../../layers/storage/migrations.ts"
import { type NodeSeen, PairingsRepo } from "../../../services/pairing/PairingsRepo.ts"
import { testDatabases } from "../../support/databases.ts"

const seen = (nodeId: string, at: string, over: Partial<NodeSeen> = {}): NodeSeen => ({
  nodeId,
  label: "lab box",
  capabilities: [{ id: "cli.exec", version: "1.0.0" }, { id: "desktop.screenshot" }],
  metadata: { platform: "linux", ip: "10.1.2.3" },
  at,
  ...over
})
const T0 = "2026-01-01T00:00:00.000Z"
const T1 = "2026-01-01T00:00:01.000Z"
const T2 = "2026-01-01T00:00:02.000Z"
const BY = { kind: "ws", principal: "dev_op" } as const
const approval = (digest: string) => ({
  trustLevel: "remote" as const,
  allowlist: [{ id: "cli.exec", version: "1.0.0" }],
  tokenDigest: digest,
  at: T1,
  by: BY,
  reason: undefined
})

for (const db of testDatabases) {
  describe(`PairingsRepo on ${db.name}`, () => {
    it.effect("migrates once, round-trips rows, and writes each transition conditionally", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* Effect.provide(Effect.asVoid(PairingsRepo), Layer.fresh(PairingsRepo.layer))
        const applied = yield* sql<{ n: number | string }>`SELECT COUNT(*) AS n FROM ${sql(migrationsTable("pairing"))}`
        expect(Number(applied[0].n)).toBe(1)

        const repo = yield* PairingsRepo
        const created = yield* repo.insertPending(seen("dev_1", T0))
        expect(created).toEqual({
          pairing_id: 1,
          status: "pending",
          trust_level: null,
          requested_at: T0,
          node: {
            node_id: "dev_1",
            label: "lab box",
            capabilities: [{ id: "cli.exec", version: "1.0.0" }, { id: "desktop.screenshot" }],
            last_seen_at: T0,
            metadata: { platform: "linux", ip: "10.1.2.3" }
          },
          capability_allowlist: [],
          resolution: null,
          resolved_at: null
        })
        expect(yield* repo.insertPending(seen("dev_1", T1))).toBeUndefined() // one pairing per node
        expect(yield* repo.get(1)).toEqual(created)
        expect(yield* repo.findByNode("dev_1")).toEqual(created)
        expect(yield* repo.reopen(seen("dev_1", T1))).toBeUndefined() // only denied or revoked reopen

        const refreshed = yield* repo.refresh(seen("dev_1", T1, { label: undefined, metadata: undefined, capabilities: [] }))
        expect(refreshed?.node).toEqual({ node_id: "dev_1", capabilities: [], last_seen_at: T1 })
        expect(refreshed?.requested_at).toBe(T0)
        expect(yield* repo.refresh(seen("dev_1", T1), 1)).toBeUndefined() // a scoped refresh needs approved

        const approved = yield* repo.approve(1, approval("d".repeat(64)))
        expect(approved).toMatchObject({
          status: "approved",
          trust_level: "remote",
          capability_allowlist: [{ id: "cli.exec", version: "1.0.0" }],
          resolution: { decision: "approved", resolved_at: T1, resolved_by: BY },
          resolved_at: T1
        })
        expect(JSON.stringify(approved)).not.toContain("d".repeat(64))
        expect(yield* repo.approve(1, approval("e".repeat(64)))).toBeUndefined()
        expect(yield* repo.deny(1, { at: T2, by: BY, reason: "x" })).toBeUndefined()
        expect(yield* repo.findApprovedByTokenDigest("d".repeat(64))).toEqual({ pairingId: 1, nodeId: "dev_1", tokenDigest: "d".repeat(64) })
        expect(yield* repo.findApprovedByTokenDigest("e".repeat(64))).toBeUndefined()
        expect((yield* repo.refresh(seen("dev_1", T2), 1))?.node.last_seen_at).toBe(T2)

        // A digest belongs to one pairing at most (unique index): the refused write is a defect at the repository edge.
        // (ids come from a sequence: the refused insert above may have used one, so they need not be dense)
        const second = (yield* repo.insertPending(seen("dev_2", T2)))!.pairing_id
        const clash = yield* Effect.exit(repo.approve(second, approval("d".repeat(64))))
        expect(Exit.isFailure(clash) && Cause.squash(clash.cause)).toMatchObject({ _tag: "SqlError" })
        expect((yield* repo.get(second))?.status).toBe("pending")

        const revoked = yield* repo.revoke(1, { at: T2, by: BY, reason: "gone" })
        expect(revoked).toMatchObject({ status: "revoked", trust_level: "remote", resolution: { decision: "revoked", reason: "gone" } })
        expect(yield* repo.revoke(1, { at: T2, by: BY, reason: undefined })).toBeUndefined()
        expect(yield* repo.findApprovedByTokenDigest("d".repeat(64))).toBeUndefined()
        const stored = yield* sql<{ token_digest: string | null }>`SELECT token_digest FROM node_pairings WHERE pairing_id = 1`
        expect(stored[0].token_digest).toBeNull()
        expect(yield* repo.refresh(seen("dev_1", T2))).toBeUndefined()

        const reopened = yield* repo.reopen(seen("dev_1", T2))
        expect(reopened).toMatchObject({ status: "pending", trust_level: null, capability_allowlist: [], requested_at: T2, resolution: null, resolved_at: null })
        const denied = yield* repo.deny(1, { at: T2, by: BY, reason: undefined })
        expect(denied).toMatchObject({ status: "denied", resolution: { decision: "denied", resolved_at: T2 } })
        expect(yield* repo.revoke(99, { at: T2, by: BY, reason: undefined })).toBeUndefined()
        expect((yield* repo.list()).map((p) => p.pairing_id)).toEqual([second, 1]) // same requested_at: higher id first
        expect((yield* repo.list("denied")).map((p) => p.pairing_id)).toEqual([1])
      }).pipe(Effect.provide(PairingsRepo.layer.pipe(Layer.provideMerge(db.make())))))
  })
}
