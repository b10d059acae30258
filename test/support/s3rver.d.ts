/** The part of `s3rver` (no types of its own) the tests use: a local S3-protocol server. */
declare module "s3rver" {
  import type { AddressInfo } from "node:net"
  interface S3rverOptions {
    readonly port?: number
    readonly address?: string
    readonly silent?: boolean
    readonly directory: string
    readonly resetOnClose?: boolean
  }
  export default class S3rver {
    constructor(options: S3rverOptions)
    run(): Promise<AddressInfo>
    close(): Promise<void>
  }
}
