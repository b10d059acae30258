/**
 * Several gateways in this process with `SVC_CLUSTER=1` on one fresh PostgreSQL schema (issue 27; docs/scaling.md
 * "Backplane on PostgreSQL"): the composition root selects the PostgreSQL backplane, so they act as one cluster. One
 * home for all (every instance of a cluster needs the same secrets master key), one admin token. Needs
 * SVC_TEST_DATABASE_URL (`postgresUrl`).
 */
import { Redacted } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { postgresUrl, sharedPostgresSchema } from "./databases.ts"
import { freePort } from "./docShell.ts"
import type { GatewaySettings } from "../../layers/config.ts"
import { startGateway, type TestGateway } from "./gateway.ts"

/** The cluster's admin token (also the WebSocket bootstrap credential in tests). */
export const CLUSTER_TOKEN = "cluster-test-admin-token-0123456789abcdef"
const SECRET = "cluster-test-secret-0123456789abcdef-0123"

/** Started gateways on one schema; `close` stops them all and drops the schema. */
export interface InProcessCluster {
  readonly gateways: ReadonlyArray<TestGateway>
  /** Each gateway's workflow runner port (services/workflow/engine/ClusterRunner.ts; an edge opens none). */
  readonly runnerPorts: ReadonlyArray<number>
  /** `fetch(path)` on one gateway with the admin token, parsed as JSON. */
  readonly getJson: (gateway: TestGateway, path: string) => Promise<any>
  readonly close: () => Promise<void>
}

/**
 * Starts `count` gateways, one after the other, on a fresh schema of `SVC_TEST_DATABASE_URL`, each with its own free
 * runner port on 127.0.0.1; `overrides(i)` adds settings of the i-th (e.g. `{ role: "edge" }`); `policyYml` is the
 * shared home's `policy.yml` when given.
 */
export const startInProcessCluster = async (
  count: number,
  overrides: (index: number) => Partial<GatewaySettings> = () => ({}),
  options: { readonly policyYml?: string } = {}
): Promise<InProcessCluster> => {
  if (postgresUrl === undefined) throw new Error("startInProcessCluster needs SVC_TEST_DATABASE_URL")
  const shared = await sharedPostgresSchema(postgresUrl)
  const home = mkdtempSync(join(tmpdir(), "svc-cluster-"))
  if (options.policyYml !== undefined) writeFileSync(join(home, "policy.yml"), options.policyYml)
  const settings = {
    home,
    clusterEnabled: true,
    clusterSecret: Redacted.make(SECRET),
    runnerHost: "127.0.0.1",
    adminToken: Redacted.make(CLUSTER_TOKEN),
    rateLimitMax: 10_000
  } as const
  const gateways: Array<TestGateway> = []
  const runnerPorts: Array<number> = []
  const close = async () => {
    for (const gateway of gateways) await gateway.close()
    await shared.drop()
  }
  try {
    for (let i = 0; i < count; i++) {
      runnerPorts.push(await freePort())
      gateways.push(await startGateway({ ...settings, runnerPort: runnerPorts[i], ...overrides(i) } as never, shared.layer()))
    }
  } catch (error) {
    await close()
    throw error
  }
  return {
    gateways,
    runnerPorts,
    getJson: async (gateway, path) => (await gateway.fetch(path, { headers: { authorization: `Bearer ${CLUSTER_TOKEN}` } })).json(),
    close
  }
}
