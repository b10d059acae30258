/**
 * The keyword search statement of each dialect (docs/memory.md "Search";
 * docs/performance.md "Issue 24 §5" for the measurements behind its shape).
 * Both return, best first (ties by id), `limit` rows from `offset` of the
 * items matching any word and the filter: `memory_item_id`, `kind`,
 * `provenance`, the raw `score` (higher is better) and a `snippet`.
 *
 * SQLite (FTS5, `bm25` with title 10, body 1, tags 5):
 *
 * - **The snippet is made for the page only.** With `snippet(…)` in the
 *   ranking query, SQLite makes one for every row that enters its top-N sort
 *   (a few hundred for a page of 51 over thousands of matches), each one
 *   tokenizing the item's text again. Here the page is ranked first and its
 *   rows are joined back to the index (a second, cheap `MATCH` scan without
 *   ranking) for their snippets.
 * - **Index first, rows after, when the filter is the agent alone** (the
 *   usual search): the best `CANDIDATE_FACTOR × (offset + limit)` matches are
 *   ranked from the index alone, and only those rows are read for the agent
 *   check, instead of reading every match's row (a word in 10% of 100,000
 *   items: 10,000 row reads). That page is exact when it is full and its
 *   last score is above the lowest candidate's (every item ranked above it
 *   was a candidate), or when there were fewer matches than candidates;
 *   otherwise (an agent holding a small share of the matches, ties at the
 *   cut) the statement ranks every match with the rows, as without
 *   candidates. Either way the same rows in the same order as ranking
 *   everything: the statement decides which half runs, in one round trip.
 *
 * PostgreSQL: `ts_rank_cd` over the stored `search_document` (memory
 * migration 4), the GIN index over the same column; `ts_headline` runs for
 * the page's rows only (the ranked CTE).
 *
 * @module
 */
import type { SqlClient, Statement } from "effect/sql"

/** How many candidates per wanted row the SQLite index-first ranking reads (see the module's description). */
export const CANDIDATE_FACTOR = 4

/** The parts of a search: WHERE clauses over `memory_items m` (the agent first), the words, the page. */
export interface SearchStatementInput {
  readonly where: ReadonlyArray<Statement.Fragment>
  /** True when `where` is the agent clause alone: SQLite may rank from the index first. */
  readonly agentOnly: boolean
  readonly words: ReadonlyArray<string>
  readonly offset: number
  readonly limit: number
}

/** SQLite's FTS5 query: any of the words, each a quoted string (no query syntax reaches FTS5). */
const ftsQuery = (words: ReadonlyArray<string>): string => words.map((w) => `"${w}"`).join(" OR ")

/** The SQLite statement (see the module's description). */
export const sqliteSearch = (sql: SqlClient.SqlClient, input: SearchStatementInput): Statement.Statement<unknown> => {
  const { agentOnly, limit, offset } = input
  const match = ftsQuery(input.words)
  const where = sql.and(input.where)
  const bm25 = sql.literal("-bm25(memory_items_fts, 10.0, 1.0, 5.0)")
  /** Ranks every match with its row; under `unless`, a condition of no row (tested once, before the index is read). */
  const everyMatch = (unless?: Statement.Fragment) =>
    sql`SELECT m.rowid AS rid, m.memory_item_id, m.kind, m.provenance, ${bm25} AS score
      FROM memory_items_fts JOIN memory_items m ON m.rowid = memory_items_fts.rowid
      WHERE ${unless === undefined ? sql`` : sql`NOT ${unless} AND `}memory_items_fts MATCH ${match} AND ${where}
      ORDER BY score DESC, m.memory_item_id LIMIT ${limit} OFFSET ${offset}`
  const candidates = CANDIDATE_FACTOR * (offset + limit)
  const page = agentOnly
    ? sql`candidates AS (
        SELECT rowid AS rid, ${bm25} AS score FROM memory_items_fts
        WHERE memory_items_fts MATCH ${match} ORDER BY score DESC LIMIT ${candidates}
      ),
      early AS (
        SELECT m.rowid AS rid, m.memory_item_id, m.kind, m.provenance, c.score
        FROM candidates c JOIN memory_items m ON m.rowid = c.rid
        WHERE ${where} ORDER BY c.score DESC, m.memory_item_id LIMIT ${limit} OFFSET ${offset}
      ),
      exact AS (
        SELECT (SELECT count(*) FROM candidates) < ${candidates} OR (
          (SELECT count(*) FROM early) = ${limit} AND (SELECT min(score) FROM early) > (SELECT min(score) FROM candidates)
        ) AS yes
      ),
      page AS (
        SELECT rid, memory_item_id, kind, provenance, score FROM early WHERE (SELECT yes FROM exact)
        UNION ALL
        SELECT * FROM (${everyMatch(sql`(SELECT yes FROM exact)`)})
      )`
    : sql`page AS (${everyMatch()})`
  return sql`WITH ${page}
    SELECT page.memory_item_id, page.kind, page.provenance, page.score,
      snippet(memory_items_fts, -1, '[', ']', '…', 16) AS snippet
    FROM memory_items_fts CROSS JOIN page ON page.rid = memory_items_fts.rowid
    WHERE memory_items_fts MATCH ${match}
    ORDER BY page.score DESC, page.memory_item_id`
}

/** The PostgreSQL statement (see the module's description). */
export const postgresSearch = (sql: SqlClient.SqlClient, input: SearchStatementInput): Statement.Statement<unknown> =>
  sql`WITH q AS (SELECT to_tsquery('english', ${input.words.join(" | ")}) AS query),
    ranked AS (
      SELECT m.memory_item_id, m.kind, m.provenance, m.search_title, m.search_body,
        ts_rank_cd(m.search_document, q.query, 0) AS score
      FROM memory_items m, q
      WHERE m.search_document @@ q.query AND ${sql.and(input.where)}
      ORDER BY score DESC, m.memory_item_id LIMIT ${input.limit} OFFSET ${input.offset}
    )
    SELECT ranked.memory_item_id, ranked.kind, ranked.provenance, ranked.score,
      ts_headline('english', ranked.search_title || ' — ' || ranked.search_body, q.query,
      'StartSel=[, StopSel=], MaxWords=24, MinWords=6, ShortWord=2') AS snippet
    FROM ranked, q ORDER BY ranked.score DESC, ranked.memory_item_id`
