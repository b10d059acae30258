/**
 * In-process A/B of the metrics on the whole request path (part of
 * `npm run bench:metrics`): three copies of the gateway's HTTP routes and
 * services in this one process (SQLite in memory), served through
 * `HttpRouter.toWebHandler` with no socket: metrics on, off, and off again
 * (the A/A control). Short batches of authenticated `POST /policy/check`
 * rotate between them, and each batch's CPU time per request is read with
 * `process.cpuUsage()`, so time spent descheduled by other processes on this
 * shared machine does not count. Reports the median per-rotation ratios.
 *
 * @module
 */
import { Layer, References } from "effect"
import { HttpRouter } from "effect/http"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { defaultSettings } from "../src/app/settings.ts"
import { GatewayConfigLive, GatewayHttpRoutes, gatewayServices, StorageMemoryTest } from "../src/app/gateway.ts"
import { BENCH_ADMIN_TOKEN, SAMPLE_BODY } from "./sample.ts"

/** Results of {@link runInProcessAB}: CPU µs per request and the per-rotation ratios' medians and quartiles. */
export interface InProcessAB {
  readonly batches: number
  readonly batchSize: number
  readonly cpuUs: { readonly on: number; readonly off: number; readonly off2: number }
  /** on ÷ off per rotation: median and interquartile range. */
  readonly onOff: readonly [number, number, number]
  /** off2 ÷ off per rotation (the control). */
  readonly control: readonly [number, number, number]
}

const summary = (values: ReadonlyArray<number>): readonly [number, number, number] => {
  const sorted = [...values].sort((a, b) => a - b)
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(p * (sorted.length - 1))))]
  return [at(0.5), at(0.25), at(0.75)]
}

const gateway = (metricsEnabled: boolean, home: string) => {
  const settings = defaultSettings({ home, adminToken: BENCH_ADMIN_TOKEN, metricsEnabled, logLevel: "Error" })
  return HttpRouter.toWebHandler(
    GatewayHttpRoutes.pipe(
      Layer.provideMerge(gatewayServices({ storage: StorageMemoryTest })),
      Layer.provideMerge(GatewayConfigLive(settings)),
      // The report is the output: no start-up logs.
      Layer.provideMerge(Layer.succeed(References.MinimumLogLevel, "None"))
    ),
    { disableLogger: true }
  )
}

/** Rotates `batches` batches of `batchSize` requests over the three gateways (order rotated every time). */
export const runInProcessAB = async (batches: number, batchSize: number): Promise<InProcessAB> => {
  const home = mkdtempSync(join(tmpdir(), "svc-bench-metrics-inproc-"))
  const targets = { on: gateway(true, join(home, "on")), off: gateway(false, join(home, "off")), off2: gateway(false, join(home, "off2")) }
  const names = ["on", "off", "off2"] as const
  const request = () =>
    new Request("http://127.0.0.1/policy/check", {
      method: "POST",
      headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, "content-type": "application/json" },
      body: SAMPLE_BODY
    })
  const batch = async (name: (typeof names)[number]) => {
    const handler = targets[name].handler
    const before = process.cpuUsage()
    for (let i = 0; i < batchSize; i++) {
      const response = await handler(request())
      if (response.status !== 200) throw new Error(`${name}: ${response.status} ${await response.text()}`)
      await response.arrayBuffer()
    }
    const used = process.cpuUsage(before)
    return (used.user + used.system) / batchSize
  }
  try {
    for (const name of names) for (let i = 0; i < 5; i++) await batch(name)
    const cpu = { on: [] as Array<number>, off: [] as Array<number>, off2: [] as Array<number> }
    const onOff: Array<number> = []
    const control: Array<number> = []
    for (let b = 0; b < batches; b++) {
      const shift = b % 3
      const round: Partial<Record<(typeof names)[number], number>> = {}
      for (const name of [...names.slice(shift), ...names.slice(0, shift)]) round[name] = await batch(name)
      for (const name of names) cpu[name].push(round[name]!)
      onOff.push(round.on! / round.off!)
      control.push(round.off2! / round.off!)
    }
    const mean = (values: ReadonlyArray<number>) => values.reduce((a, v) => a + v, 0) / values.length
    return {
      batches,
      batchSize,
      cpuUs: { on: mean(cpu.on), off: mean(cpu.off), off2: mean(cpu.off2) },
      onOff: summary(onOff),
      control: summary(control)
    }
  } finally {
    await Promise.all(Object.values(targets).map((t) => t.dispose()))
    rmSync(home, { recursive: true, force: true })
  }
}
