/**
 * The browser build of the client SDK (src/client/browser.ts, `svc-gateway/client/browser`): bundled by esbuild
 * for `platform: "browser"` it contains no Node built-in and no `ws`; the bundle, run by Deno (standard
 * `WebSocket`, WebCrypto, no Node compatibility needed), completes the device-proof handshake against a real
 * gateway and makes requests. The transcript it signs is byte for byte the one the gateway verifies.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { build, type Metafile } from "esbuild"
import { execFile } from "node:child_process"
import { randomBytes } from "node:crypto"
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { builtinModules } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { deviceIdFromPubkey, proofTranscript, verifyProof } from "../../services/ws-sessions/deviceIdentity.ts"
import {
  deriveDeviceId,
  exportDeviceIdentity,
  generateWebCryptoIdentity,
  loadOrCreateIdentity,
  memoryDeviceIdentityStore,
  proofTranscriptBytes,
  signProofAsync
} from "../../src/client/browser.ts"
import { base64UrlDecode, base64UrlEncode } from "../../src/client/encoding.ts"
import { signProof, validateDeviceIdentity } from "../../src/client/identity.ts"
import { startGateway, type TestGateway } from "../support/gateway.ts"

const ROOT = join(import.meta.dirname, "..", "..")
const DENO = join(ROOT, "node_modules", ".bin", "deno")
const hasDeno = existsSync(DENO)
if (!hasDeno) console.warn(`browser-bundle.test.ts: the Deno handshake is skipped: ${DENO} is missing`)

/** Node built-ins (bare and `node:`) and Node-only packages that must not reach the browser bundle. */
const FORBIDDEN = new Set([...builtinModules, ...builtinModules.map((name) => `node:${name}`), "ws", "bufferutil", "utf-8-validate"])

interface Bundle {
  readonly text: string
  readonly metafile: Metafile
  /** Forbidden specifiers some module imported (kept external so the build can report them all). */
  readonly forbidden: ReadonlyArray<string>
}

const bundleForBrowser = async (entry: string, outfile: string): Promise<Bundle> => {
  const forbidden = new Set<string>()
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: "browser",
    format: "esm",
    target: "es2022",
    minify: true,
    metafile: true,
    logLevel: "silent",
    plugins: [{
      name: "record-node-imports",
      setup(b) {
        b.onResolve({ filter: /.*/ }, (args) => {
          if (!FORBIDDEN.has(args.path)) return undefined
          forbidden.add(`${args.path} (from ${args.importer.replace(ROOT, "")})`)
          return { path: args.path, external: true }
        })
      }
    }]
  })
  return { text: readFileSync(outfile, "utf8"), metafile: result.metafile, forbidden: [...forbidden] }
}

const runDeno = (dir: string, args: ReadonlyArray<string>): Promise<{ stdout: string; stderr: string }> =>
  new Promise((resolve, reject) => {
    execFile(
      DENO,
      ["run", "--allow-net=127.0.0.1", "--no-prompt", "--no-config", join(dir, "denoHandshake.mjs"), ...args],
      {
        cwd: dir,
        timeout: 60_000,
        env: {
          PATH: process.env["PATH"] ?? "",
          HOME: process.env["HOME"] ?? dir,
          DENO_DIR: join(ROOT, "node_modules", ".cache", "deno"),
          DENO_NO_UPDATE_CHECK: "1",
          NO_COLOR: "1",
          NO_PROXY: "127.0.0.1,localhost",
          no_proxy: "127.0.0.1,localhost"
        }
      },
      (error, stdout, stderr) => (error === null ? resolve({ stdout, stderr }) : reject(Object.assign(error, { stdout, stderr })))
    )
  })

let dir: string
let bundle: Bundle
let gw: TestGateway
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "svc-browser-bundle-"))
  bundle = await bundleForBrowser("src/client/browser.ts", join(dir, "client.js"))
  gw = await startGateway()
}, 120_000)
afterAll(async () => {
  await gw?.close()
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
})

describe("the browser bundle of the client", () => {
  it("imports no Node built-in and no ws (metafile inputs and a scan of the output)", () => {
    expect(bundle.forbidden).toEqual([])
    const inputs = Object.keys(bundle.metafile.inputs)
    expect(inputs).toContain("src/client/GatewayClientCore.ts")
    expect(inputs.filter((input) => /(^|\/)node_modules\/(ws|@types)\//.test(input) || input.startsWith("node:"))).toEqual([])
    // Node-only modules of the SDK stay out of it.
    for (const nodeOnly of ["src/client/nodeSocket.ts", "src/client/identity.ts", "src/client/scopedToken.ts", "src/client/GatewayClient.ts", "src/client/demoNode.ts"]) {
      expect(inputs).not.toContain(nodeOnly)
    }
    const output = Object.values(bundle.metafile.outputs)[0]!
    expect(output.imports).toEqual([])
    // No import or require of a Node module survives anywhere in the text.
    const specifier = String.raw`["'](node:[\w/]+|fs|fs/promises|crypto|net|tls|http|https|child_process|os|path|stream|buffer|ws)["']`
    expect(bundle.text.match(new RegExp(String.raw`\b(require|import)\s*\(\s*${specifier}`, "g"))).toBeNull()
    expect(bundle.text.match(new RegExp(String.raw`\bfrom\s*${specifier}`, "g"))).toBeNull()
  })

  it("the check bites: the Node client (ws, node:crypto, node:fs) is reported", async () => {
    const node = await bundleForBrowser("src/client/index.ts", join(dir, "node-client.js"))
    const names = node.forbidden.map((entry) => entry.split(" ")[0])
    expect(names).toEqual(expect.arrayContaining(["ws", "node:crypto", "node:fs/promises"]))
  })

  it.skipIf(!hasDeno)("runs the device-proof handshake from the bundle in Deno against a real gateway", async () => {
    copyFileSync(join(import.meta.dirname, "fixtures", "denoHandshake.mjs"), join(dir, "denoHandshake.mjs"))
    const { stdout } = await runDeno(dir, [gw.url, gw.adminToken])
    const result = JSON.parse(stdout.trim().split("\n").at(-1)!)
    expect(result.error).toBeUndefined()
    expect(result).toMatchObject({
      ok: true,
      session: { role: "client", device_id: result.identity.device_id },
      pong: null,
      beacon: "deno-bundle",
      refused: { gatewayRequestError: true, code: "unsupported_request" },
      state: "closed",
      // The gateway refuses a bad token with HTTP 401 before the upgrade; Deno names the status (browsers do not).
      wrongToken: { clientError: true, code: "upgrade_rejected", httpStatus: 401, fatal: true }
    })
    expect(result.runtime).toMatch(/^deno 2\./)
    // A WebCrypto key that never leaves the store, and the gateway's own derivation of its device_id.
    expect(result.identity.extractable).toBe(false)
    expect(deviceIdFromPubkey(result.identity.pubkey)).toBe(result.identity.device_id)
  }, 90_000)
})

describe("WebCrypto device identity (the signing the core uses)", () => {
  const fields = { role: "node" as const, connectionId: "3b0c6f3e-3c0a-4c9e-9d1e-0f4f3e0e9a11", challenge: randomBytes(32).toString("base64url") }

  it("signs the bytes the gateway verifies (proofTranscript), with the same signature as node:crypto", async () => {
    const identity = await exportDeviceIdentity(await generateWebCryptoIdentity({ extractable: true }))
    expect(validateDeviceIdentity(identity)).toEqual(identity)
    const transcript = proofTranscript({ protocolRev: 2, deviceId: identity.device_id, ...fields })
    expect(Buffer.from(proofTranscriptBytes(identity.device_id, fields)).equals(transcript)).toBe(true)
    const proof = await signProofAsync(identity, fields)
    expect(verifyProof(identity.pubkey, transcript, proof)).toBe(true)
    // Ed25519 is deterministic: WebCrypto and node:crypto agree bit for bit.
    expect(proof).toBe(signProof(identity, fields))
  })

  it("derives device_id like the gateway; memory stores keep one non-extractable key", async () => {
    const store = memoryDeviceIdentityStore()
    const identity = await loadOrCreateIdentity(store)
    expect(await loadOrCreateIdentity(store)).toBe(identity)
    expect(identity.privateKey.extractable).toBe(false)
    expect(identity.device_id).toBe(deviceIdFromPubkey(identity.pubkey))
    expect(await deriveDeviceId(base64UrlDecode(identity.pubkey))).toBe(identity.device_id)
    const transcript = proofTranscript({ protocolRev: 2, deviceId: identity.device_id, ...fields })
    expect(verifyProof(identity.pubkey, transcript, await signProofAsync(identity, fields))).toBe(true)
  })

  it("base64url matches Node's for every length", () => {
    for (let length = 0; length < 40; length++) {
      const bytes = randomBytes(length)
      expect(base64UrlEncode(bytes)).toBe(bytes.toString("base64url"))
      expect(Buffer.from(base64UrlDecode(bytes.toString("base64url"))).equals(bytes)).toBe(true)
    }
  })
})
