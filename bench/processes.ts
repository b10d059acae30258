/**
 * Child-process servers for the HTTP benchmark: free-port lookup, start and
 * wait until the server answers, CPU time from /proc, and a registry that
 * kills every child that is still alive, whatever way the bench exits
 * (normal end, thrown error, SIGINT/SIGTERM, uncaught exception).
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { request } from "node:http"
import { createServer } from "node:net"

/** A server running in a child process. */
export interface ServerProcess {
  readonly name: string
  readonly url: string
  readonly pid: number
  /** Last lines the child printed (stdout and stderr), for error reports. */
  readonly output: () => string
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the child has exited. */
  readonly stop: (graceMs?: number) => Promise<void>
}

const live = new Set<ChildProcess>()
const finalizers = new Set<() => void>()

/**
 * Registers a synchronous clean-up (e.g. removing a temp dir) that also runs
 * on an abnormal exit; returns a function that runs it now and unregisters it.
 */
export const onExit = (finalizer: () => void): (() => void) => {
  finalizers.add(finalizer)
  return () => {
    if (finalizers.delete(finalizer)) finalizer()
  }
}

const killAllSync = (): void => {
  for (const child of live) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  }
  live.clear()
  for (const finalizer of finalizers) {
    try {
      finalizer()
    } catch {
      // best effort on the way out
    }
  }
  finalizers.clear()
}

let cleanupInstalled = false

/** Installs exit/signal handlers that kill every live child. Idempotent. */
export const installCleanup = (): void => {
  if (cleanupInstalled) return
  cleanupInstalled = true
  process.on("exit", killAllSync)
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(signal, () => {
      console.error(`\nbench: ${signal}, stopping child processes`)
      killAllSync()
      process.exit(130)
    })
  }
  process.on("uncaughtException", (error) => {
    console.error("bench: uncaught exception:", error)
    killAllSync()
    process.exit(1)
  })
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => (port > 0 ? resolve(port) : reject(new Error("no free port"))))
    })
  })

/** True once anything answers HTTP on `url` (any status). */
const answers = (url: string): Promise<boolean> =>
  new Promise((resolve) => {
    const req = request(url, { method: "GET", agent: false, timeout: 500 }, (res) => {
      res.resume()
      resolve(true)
    })
    req.on("timeout", () => req.destroy())
    req.on("error", () => resolve(false))
    req.end()
  })

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

export interface StartOptions {
  readonly name: string
  /** Script run with `node` (plus `nodeArgs`). */
  readonly script: string
  readonly args?: ReadonlyArray<string>
  readonly nodeArgs?: ReadonlyArray<string>
  readonly env: NodeJS.ProcessEnv
  readonly port: number
  readonly readyTimeoutMs?: number
}

/** Spawns a server and resolves once it answers HTTP on its port. Rejects (child killed) otherwise. */
export const startServer = async (options: StartOptions): Promise<ServerProcess> => {
  installCleanup()
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), options.script, ...(options.args ?? [])], {
    env: options.env,
    stdio: ["ignore", "pipe", "pipe"]
  })
  live.add(child)
  let tail = ""
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString("utf8")).slice(-4000)
  }
  child.stdout?.on("data", keep)
  child.stderr?.on("data", keep)
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve()
    else child.once("exit", () => resolve())
  })
  child.once("exit", () => live.delete(child))
  let spawnError: Error | undefined
  child.once("error", (error) => {
    spawnError = error
  })

  const stop = async (graceMs = 5000): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill("SIGTERM")
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs)
    await exited
    clearTimeout(timer)
  }

  const url = `http://127.0.0.1:${options.port}`
  const deadline = Date.now() + (options.readyTimeoutMs ?? 20_000)
  while (true) {
    if (spawnError !== undefined || child.exitCode !== null || child.signalCode !== null) {
      await stop(0)
      throw new Error(`${options.name} exited before it was ready (${spawnError?.message ?? `code ${child.exitCode}, signal ${child.signalCode}`}):\n${tail}`)
    }
    if (await answers(url)) break
    if (Date.now() > deadline) {
      await stop(1000)
      throw new Error(`${options.name} did not answer on ${url} within the timeout:\n${tail}`)
    }
    await sleep(100)
  }
  return { name: options.name, url, pid: child.pid ?? -1, output: () => tail, stop }
}

const CLOCK_TICKS_PER_SECOND = 100

/**
 * CPU time (user + system) a process has used so far, in seconds, read from
 * `/proc/<pid>/stat`; `undefined` where /proc is unavailable.
 */
export const processCpuSeconds = (pid: number): number | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    // Fields after the ")" that ends the command name: state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND
  } catch {
    return undefined
  }
}

/**
 * CPU time used so far by the whole machine (all cores, busy = everything but
 * idle and iowait), in seconds, from the first line of `/proc/stat`;
 * `undefined` where /proc is unavailable.
 */
export const machineBusySeconds = (): number | undefined => {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]
    const fields = line.trim().split(/\s+/).slice(1, 9).map(Number)
    const busy = fields.reduce((a, b) => a + b, 0) - fields[3] - fields[4]
    return busy / CLOCK_TICKS_PER_SECOND
  } catch {
    return undefined
  }
}
