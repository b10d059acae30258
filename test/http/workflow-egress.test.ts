/**
 * Workflow `Http` steps against a real gateway (issue 20 §3, §6, §11;
 * docs/workflow-executors.md "Http"), on SQLite and PostgreSQL (when
 * SVC_TEST_DATABASE_URL is set):
 *
 * - egress: with `deny ["http://127.0.0.1:*", "http://169.254.169.254/*"]`,
 *   localhost, LOCALHOST and IPv4-mapped IPv6 spellings of 127.0.0.1 fail
 *   the run with policy_denied and never reach the target; the playbook dry
 *   run judges `http://[::ffff:169.254.169.254]/…` deny;
 * - credentials: a `{secret_handle}` header reaches the target with the
 *   secret's value; inline credentials (a header, the URL's userinfo and
 *   token query) reach the target but are `[redacted]` in
 *   `GET /workflow/runs/:id` and in the snapshot export; attempt results keep
 *   only allow-listed response headers; a handle whose scope the `secrets`
 *   policy does not allow is denied;
 * - a keyed step sends `Idempotency-Key: <key>`;
 * - trace headers reach only the targets of SVC_TRACE_PROPAGATION_TARGETS.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { StorageMemoryTest } from "../../src/app/gateway.ts"
import { postgres } from "../support/databases.ts"
import { eventually } from "../support/eventually.ts"
import { type HttpTarget, startHttpTarget } from "../support/httpTarget.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"

const databases = [
  { name: "sqlite", storage: () => StorageMemoryTest },
  ...(postgres === undefined ? [] : [{ name: "postgresql", storage: () => postgres!.make() }])
]

const KEY = "agent:default:main"

const client = (gw: TestGateway) => {
  const headers = { authorization: `Bearer ${gw.adminToken}` }
  return {
    get: async (path: string) => readJson(await gw.fetch(path, { headers })),
    post: async (path: string, body?: unknown) => {
      const res = body === undefined ? await gw.fetch(path, { method: "POST", headers }) : await postJson(gw, path, body, gw.adminToken)
      return { status: res.status, body: await readJson(res) }
    },
    /** Starts a run of `steps` and waits until it leaves queued/running. */
    run: async (steps: ReadonlyArray<unknown>) => {
      const started = await postJson(gw, "/workflow/run", { key: KEY, steps }, gw.adminToken)
      expect(started.status).toBe(200)
      const { run_id } = await readJson(started)
      let detail: any
      await eventually(async () => {
        detail = await readJson(await gw.fetch(`/workflow/runs/${run_id}`, { headers }))
        return !["queued", "running"].includes(detail.run?.status)
      }, `run ${run_id} to settle`, 30_000)
      return detail
    }
  }
}

for (const database of databases) {
  describe(`egress rules on every spelling of a denied host (${database.name})`, () => {
    let gw: TestGateway
    let target: HttpTarget
    let c: ReturnType<typeof client>

    beforeAll(async () => {
      target = await startHttpTarget()
      const home = mkdtempSync(join(tmpdir(), "svc-egress-"))
      writeFileSync(
        join(home, "policy.yml"),
        `v: 1
tools:
  allow: [tool.http.fetch]
network_egress:
  allow: ["http://*"]
  deny: ["http://127.0.0.1:*", "http://169.254.169.254/*"]
`
      )
      mkdirSync(join(home, "playbooks", "metadata"), { recursive: true })
      writeFileSync(
        join(home, "playbooks", "metadata", "playbook.yml"),
        "id: metadata\nname: Metadata\nversion: 1\nsteps:\n  - id: creds\n    command: http http://[::ffff:169.254.169.254]/latest/meta-data\n"
      )
      gw = await startGateway({ rateLimitMax: 10_000, engineApiEnabled: true, home }, database.storage())
      c = client(gw)
    })
    afterAll(async () => {
      await gw?.close()
      await target?.close()
    })

    it("denies localhost, LOCALHOST and IPv4-mapped IPv6 forms of 127.0.0.1; the target is never called", async () => {
      const port = new URL(target.url).port
      for (const host of ["localhost", "LOCALHOST", "localhost.", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]"]) {
        const detail = await c.run([{ type: "Http", args: { url: `http://${host}:${port}/x` } }])
        expect(detail.run.status, host).toBe("failed")
        expect(detail.steps[0].attempts[0].error.code, host).toBe("policy_denied")
      }
      expect(target.calls).toEqual([])
    })

    it("the playbook dry run judges http://[::ffff:169.254.169.254]/… deny", async () => {
      const { status, body } = await c.post("/playbooks/metadata/run")
      expect(status).toBe(200)
      expect(body.steps[0].policy.decision).toBe("deny")
      expect(body.steps[0].policy.rules).toContainEqual({
        rule: "network_egress",
        outcome: "deny",
        detail: "http://169.254.169.254/latest/meta-data"
      })
    })
  })

  describe(`Http step credentials, Idempotency-Key and trace headers (${database.name})`, () => {
    let gw: TestGateway
    let traced: HttpTarget
    let untraced: HttpTarget
    let c: ReturnType<typeof client>

    beforeAll(async () => {
      const answer = { "set-cookie": "session=target-cookie", "x-internal-token": "target-token", etag: "\"e1\"" }
      traced = await startHttpTarget(() => ({ ok: true }), answer)
      untraced = await startHttpTarget(() => ({ ok: true }), answer)
      const home = mkdtempSync(join(tmpdir(), "svc-egress-"))
      writeFileSync(
        join(home, "policy.yml"),
        `v: 1
tools:
  allow: [tool.http.fetch]
network_egress:
  allow: ["http://127.0.0.1:*"]
secrets:
  allow: ["upstream.*"]
`
      )
      gw = await startGateway({
        rateLimitMax: 10_000,
        engineApiEnabled: true,
        home,
        tracePropagationTargets: [`${traced.url}*`]
      }, database.storage())
      c = client(gw)
    })
    afterAll(async () => {
      await gw?.close()
      await traced?.close()
      await untraced?.close()
    })

    it("sends secret handles' values and inline credentials, stores and serves them redacted, keeps allow-listed response headers", async () => {
      const stored = await c.post("/secrets", { scope: "upstream.api", value: "Bearer from-the-store" })
      expect(stored.status).toBe(201)
      const handle = stored.body.handle.handle_id
      const withUserinfo = traced.url.replace("http://", "http://alice:inline-password@")
      const detail = await c.run([
        { type: "Http", args: { url: `${withUserinfo}a?token=inline-token&page=2`, headers: { Authorization: { secret_handle: handle } } } },
        { type: "Http", args: { method: "POST", url: `${untraced.url}b`, headers: { "x-api-key": "inline-api-key" }, body: { n: 1 } } }
      ])
      expect(detail.run.status).toBe("succeeded")

      // The targets got the real values.
      expect(traced.headers[0]!.authorization).toBe("Bearer from-the-store")
      expect(traced.calls[0]).toBe("GET /a?token=inline-token&page=2")
      expect(untraced.headers[0]!["x-api-key"]).toBe("inline-api-key")

      // Records: redacted, with the marker; the reference kept.
      expect(detail.steps[0].action.args).toEqual({
        url: `${traced.url.replace("http://", "http://[redacted]@")}a?token=[redacted]&page=2`,
        headers: { Authorization: { secret_handle: handle } }
      })
      expect(detail.steps[1].action.args.headers).toEqual({ "x-api-key": "[redacted]" })
      for (const step of detail.steps) {
        expect(step.attempts[0].result.headers).toEqual({ etag: "\"e1\"", date: expect.any(String), "content-type": "application/json" })
      }
      const served = JSON.stringify(detail)
      for (const secret of ["from-the-store", "inline-password", "inline-token", "inline-api-key", "target-cookie", "target-token"]) {
        expect(served).not.toContain(secret)
      }

      // The snapshot export carries the same records.
      const exported = JSON.stringify(await c.get("/snapshot/export"))
      expect(exported).toContain(handle)
      expect(exported).toContain("x-api-key")
      for (const secret of ["from-the-store", "inline-password", "inline-token", "inline-api-key", "target-cookie", "target-token"]) {
        expect(exported).not.toContain(secret)
      }
    })

    it("a secret handle is judged by the secrets policy on its scope: one the bundle does not allow is denied", async () => {
      const other = await c.post("/secrets", { scope: "other.api", value: "v" })
      const calls = traced.calls.length
      const detail = await c.run([{ type: "Http", args: { url: `${traced.url}c`, headers: { "x-key": { secret_handle: other.body.handle.handle_id } } } }])
      expect(detail.run.status).toBe("failed")
      expect(detail.steps[0].attempts[0].error.code).toBe("policy_denied")
      expect(detail.steps[0].attempts[0].policy_decision.rules).toContainEqual({ rule: "secrets", outcome: "deny", detail: "scopes=1" })
      expect(traced.calls.length).toBe(calls)
    })

    it("a keyed step sends its key as Idempotency-Key; an unkeyed one none", async () => {
      const before = untraced.headers.length
      const detail = await c.run([
        { type: "Http", args: { method: "POST", url: `${untraced.url}keyed`, body: {} }, idempotency_key: "order-42" },
        { type: "Http", args: { method: "POST", url: `${untraced.url}unkeyed`, body: {} } }
      ])
      expect(detail.run.status).toBe("succeeded")
      expect(untraced.headers.slice(before).map((h) => h["idempotency-key"])).toEqual(["order-42", undefined])
    })

    it("sends traceparent and b3 only to targets of SVC_TRACE_PROPAGATION_TARGETS", async () => {
      const t = traced.headers.length
      const u = untraced.headers.length
      const detail = await c.run([{ type: "Http", args: { url: `${traced.url}t` } }, { type: "Http", args: { url: `${untraced.url}u` } }])
      expect(detail.run.status).toBe("succeeded")
      expect(traced.headers[t]!.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/)
      expect(traced.headers[t]!.b3).toBeDefined()
      expect(untraced.headers[u]!.traceparent).toBeUndefined()
      expect(untraced.headers[u]!.b3).toBeUndefined()
    })
  })
}
