/**
 * Shared helpers of the client SDK tests: fake gateways and clients that are
 * cleaned up after each test, and listener-to-Promise helpers.
 */
import { afterEach } from "@effect/vitest"
import {
  GatewayClient,
  type GatewayClientEventMap,
  type GatewayClientOptions
} from "../../src/client/GatewayClient.ts"
import { generateDeviceIdentity } from "../../src/client/identity.ts"
import { FakeGateway } from "./fakeGateway.ts"

const gateways: Array<FakeGateway> = []
const clients: Array<GatewayClient> = []

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()))
  await Promise.all(gateways.splice(0).map((gateway) => gateway.close()))
})

/** Starts a fake gateway closed after the test. */
export const startFake = async (token?: string): Promise<FakeGateway> => {
  const gateway = await FakeGateway.start(token === undefined ? {} : { token })
  gateways.push(gateway)
  return gateway
}

/** A client of `gateway` (role client, fresh identity, no reconnect unless overridden), closed after the test. */
export const makeClient = (gateway: FakeGateway, overrides: Partial<GatewayClientOptions> = {}): GatewayClient => {
  const client = new GatewayClient({
    url: gateway.url,
    token: gateway.token,
    role: "client",
    identity: generateDeviceIdentity(),
    reconnect: false,
    ...overrides
  })
  clients.push(client)
  return client
}

/** The next value passed to the `name` listeners. */
export const nextEmit = <E extends keyof GatewayClientEventMap>(
  client: GatewayClient,
  name: E
): Promise<Parameters<GatewayClientEventMap[E]>[0]> =>
  new Promise((resolve) => {
    const off = client.on(name, ((value: Parameters<GatewayClientEventMap[E]>[0]) => {
      off()
      resolve(value)
    }) as GatewayClientEventMap[E])
  })

/** Every value passed to the `name` listeners from now on. */
export const record = <E extends keyof GatewayClientEventMap>(
  client: GatewayClient,
  name: E
): Array<Parameters<GatewayClientEventMap[E]>[0]> => {
  const values: Array<Parameters<GatewayClientEventMap[E]>[0]> = []
  client.on(name, ((value: Parameters<GatewayClientEventMap[E]>[0]) => void values.push(value)) as GatewayClientEventMap[E])
  return values
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** The rejection of `promise` (fails when it resolves). */
export const rejectionOf = async (promise: Promise<unknown>): Promise<Error> => {
  try {
    await promise
  } catch (error) {
    return error as Error
  }
  throw new Error("expected a rejection")
}
