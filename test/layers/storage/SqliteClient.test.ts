/**
 * Behaviour specific to our libsql-based SQLite client.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import { mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { hasMultipleStatements, layer as sqliteLayer, SqliteClient } from "../../../layers/storage/SqliteClient.ts"

describe("hasMultipleStatements", () => {
  it("detects SQL after a top-level semicolon only", () => {
    assert.isFalse(hasMultipleStatements("SELECT 1"))
    assert.isFalse(hasMultipleStatements("SELECT 1;"))
    assert.isFalse(hasMultipleStatements("SELECT 1; -- trailing comment\n  /* and another */ "))
    assert.isFalse(hasMultipleStatements("SELECT 'a;b', \"c;d\", [e;f], `g;h`"))
    assert.isFalse(hasMultipleStatements("SELECT 'it''s; fine'"))
    assert.isTrue(hasMultipleStatements("SELECT 1; SELECT 2"))
    assert.isTrue(hasMultipleStatements("CREATE TABLE a (x);\nCREATE TABLE b (y);"))
    assert.isTrue(hasMultipleStatements("SELECT 1 -- ;\n; SELECT 'x'"))
  })
})

layer(sqliteLayer({ filename: ":memory:" }))("SqliteClient", (it) => {
  it.effect("provides SqliteClient with its config and the SqlClient", () =>
    Effect.gen(function*() {
      const client = yield* SqliteClient
      const sql = yield* SqlClient.SqlClient
      assert.strictEqual(client.config.filename, ":memory:")
      assert.strictEqual(client, sql)
      const [fk] = yield* sql<{ foreign_keys: number }>`PRAGMA foreign_keys`
      assert.strictEqual(fk.foreign_keys, 1)
    }))

  it.effect("converts Date, undefined and binary parameters", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const date = new Date("2024-05-06T07:08:09.010Z")
      const [row] = yield* sql<{ d: string; td: string; u: null; b: Uint8Array }>`
        SELECT ${date} AS d, typeof(${date}) AS td, ${undefined} AS u, ${new Uint8Array([1, 2, 3])} AS b`
      assert.strictEqual(row.d, "2024-05-06T07:08:09.010Z")
      assert.strictEqual(row.td, "text")
      assert.isNull(row.u)
      assert.instanceOf(row.b, Uint8Array)
      assert.deepStrictEqual(Array.from(row.b), [1, 2, 3])
    }))

  it.effect("reads safe integers as numbers and larger ones as bigint", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const [row] = yield* sql<{ small: unknown; big: unknown; real: unknown }>`
        SELECT 9007199254740991 AS small, 9007199254740992 AS big, 1.5 AS real`
      assert.strictEqual(row.small, 9007199254740991)
      assert.strictEqual(row.big, 9007199254740992n)
      assert.strictEqual(row.real, 1.5)
    }))

  it.effect("runs multi-statement SQL only through .unprepared", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql.unsafe("CREATE TABLE multi_a (x INTEGER); CREATE TABLE multi_b (y INTEGER);").unprepared
      yield* sql`INSERT INTO multi_b (y) VALUES (${1})`
      const prepared = yield* sql.unsafe("CREATE TABLE multi_c (x INTEGER); CREATE TABLE multi_d (y INTEGER)").pipe(
        Effect.flip
      )
      assert.include(prepared.message, "more than one statement")
      const withParams = yield* sql.unsafe("SELECT ?; SELECT ?", [1, 2]).unprepared.pipe(Effect.flip)
      assert.include(withParams.message, "more than one statement")
      const tables = yield* sql<{ name: string }>`
        SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'multi_%' ORDER BY name`
      assert.deepStrictEqual(tables.map((table) => table.name), ["multi_a", "multi_b"])
    }))

  it.effect("supports values, raw results and unprepared queries", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE misc (id INTEGER PRIMARY KEY, name TEXT)`
      const raw = yield* sql`INSERT INTO misc (name) VALUES (${"a"}), (${"b"})`.raw
      assert.deepStrictEqual(raw, { changes: 2, lastInsertRowid: 2 })
      const values = yield* sql`SELECT id, name FROM misc ORDER BY id`.values
      assert.deepStrictEqual(values, [[1, "a"], [2, "b"]])
      const unprepared = yield* sql`SELECT name FROM misc WHERE id = ${2}`.unprepared
      assert.deepStrictEqual(unprepared, [{ name: "b" }])
      const valuesUnprepared = yield* sql`SELECT name FROM misc WHERE id = ${1}`.valuesUnprepared
      assert.deepStrictEqual(valuesUnprepared, [["a"]])
    }))

  it.effect("reports SQL errors as SqlError", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const error = yield* sql`SELEC 1`.pipe(Effect.flip)
      assert.strictEqual(error._tag, "SqlError")
      assert.include(error.message, "syntax error")
    }))
})

describe("SqliteClient files", () => {
  it.effect("fails with a SqlError when the file cannot be opened", () =>
    Effect.gen(function*() {
      const error = yield* Effect.provide(Effect.void, sqliteLayer({ filename: "/nonexistent-dir/x/y.db" })).pipe(
        Effect.flip
      )
      assert.strictEqual(error._tag, "SqlError")
    }))

  it.effect("creates a missing database file with mode 0600, and SQLite gives its -wal and -shm files the same", () =>
    Effect.gen(function*() {
      const directory = yield* Effect.acquireRelease(
        Effect.sync(() => mkdtempSync(join(tmpdir(), "svc-sqlite-"))),
        (directory) => Effect.sync(() => rmSync(directory, { recursive: true, force: true }))
      )
      const filename = join(directory, "private.db")
      const umask = process.umask(0o022)
      try {
        const sql = yield* SqlClient.SqlClient.pipe(Effect.provide(yield* Layer.build(sqliteLayer({ filename }))))
        yield* sql`CREATE TABLE t (x INTEGER)`
        yield* sql`INSERT INTO t (x) VALUES (${1})`
      } finally {
        process.umask(umask)
      }
      for (const file of [filename, `${filename}-wal`, `${filename}-shm`]) {
        assert.strictEqual(statSync(file).mode & 0o777, 0o600, file)
      }
    }))

  it.live("waits for another connection's write lock, then times out with a LockTimeoutError", () =>
    Effect.gen(function*() {
      const directory = yield* Effect.acquireRelease(
        Effect.sync(() => mkdtempSync(join(tmpdir(), "svc-sqlite-"))),
        (directory) => Effect.sync(() => rmSync(directory, { recursive: true, force: true }))
      )
      const filename = join(directory, "locked.db")
      const first = yield* Layer.build(sqliteLayer({ filename }))
      const second = yield* Layer.build(sqliteLayer({ filename, busyTimeoutMillis: 100 }))
      const a = SqlClient.SqlClient.pipe(Effect.provide(first))
      const b = SqlClient.SqlClient.pipe(Effect.provide(second))
      const sqlA = yield* a
      const sqlB = yield* b
      yield* sqlA`CREATE TABLE t (x INTEGER)`
      const error = yield* sqlA.withTransaction(Effect.gen(function*() {
        yield* sqlA`INSERT INTO t (x) VALUES (${1})`
        return yield* sqlB`INSERT INTO t (x) VALUES (${2})`.pipe(Effect.flip)
      }))
      assert.strictEqual(error.reason._tag, "LockTimeoutError")
      const rows = yield* sqlB`SELECT x FROM t`
      assert.deepStrictEqual(rows, [{ x: 1 }])
    }))

  it.live("syncs at every commit by default (FULL); NORMAL only when asked (SVC_SQLITE_SYNCHRONOUS)", () =>
    Effect.gen(function*() {
      const directory = yield* Effect.acquireRelease(
        Effect.sync(() => mkdtempSync(join(tmpdir(), "svc-sqlite-"))),
        (directory) => Effect.sync(() => rmSync(directory, { recursive: true, force: true }))
      )
      const synchronous = (layer: Layer.Layer<SqlClient.SqlClient, unknown>) =>
        Effect.flatMap(Layer.build(layer), (context) =>
          SqlClient.SqlClient.pipe(
            Effect.flatMap((sql) => sql<{ synchronous: number }>`PRAGMA synchronous`),
            Effect.provide(context),
            Effect.map((rows) => rows[0]!.synchronous)
          ))
      // SQLite's codes: 1 = NORMAL, 2 = FULL.
      assert.strictEqual(yield* synchronous(sqliteLayer({ filename: join(directory, "full.db") })), 2)
      assert.strictEqual(yield* synchronous(sqliteLayer({ filename: join(directory, "normal.db"), synchronous: "NORMAL" })), 1)
    }))
})
