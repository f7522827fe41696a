/**
 * The released migrations, without a database: each migration file's SQL still has the SHA-256
 * committed in src/postgres/migrations/checksums.json. A database records that checksum when it
 * applies the migration and the store refuses to start where they differ, so an edit to a released
 * migration fails here, before any database meets it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { MIGRATIONS, migrationChecksum } from "../../src/postgres/migrations/index.js";

const DIR = new URL("../../src/postgres/migrations/", import.meta.url);
type Released = { version: number; file: string; sha256: string };
const released: Released[] = JSON.parse(
  readFileSync(new URL("checksums.json", DIR), "utf8"),
).released;

describe("released migrations (src/postgres/migrations/checksums.json)", () => {
  it("every released migration's SQL has the checksum committed for it", () => {
    for (const entry of released) {
      const migration = MIGRATIONS.find((m) => m.version === entry.version);
      expect(
        migration?.file,
        `migration ${entry.version} (${entry.file}) was released: it must stay in src/postgres/migrations/index.ts, under its file name`,
      ).toBe(entry.file);
      expect(
        migration?.checksum,
        `migration ${entry.version} (src/postgres/migrations/${entry.file}) was edited after its release: a database that applied ` +
          "it records the old checksum and would refuse to start. Restore the file, and add a new migration instead",
      ).toBe(entry.sha256);
    }
  });

  it("every migration has its checksum committed, one line each", () => {
    for (const m of MIGRATIONS) {
      const line = JSON.stringify({ version: m.version, file: m.file, sha256: m.checksum });
      expect(
        released.filter((entry) => entry.version === m.version).length,
        `migration ${m.version} (${m.file}): add ${line} to src/postgres/migrations/checksums.json once it is final`,
      ).toBe(1);
    }
  });

  it("the checksum is SHA-256 of the file's SQL with its schema placeholder, the same for every schema", () => {
    for (const m of MIGRATIONS) {
      expect(m.checksum).toBe(migrationChecksum(m.text));
      expect(m.checksum).toMatch(/^[0-9a-f]{64}$/);
      // An edit of one character is another checksum.
      expect(migrationChecksum(`${m.text} `)).not.toBe(m.checksum);
      // The placeholder only ever qualifies a name, and nothing of it is left once the schema is in.
      expect(m.text.match(/:schema\b/g)?.length, m.file).toBe(m.text.match(/:schema\./g)?.length);
      expect(m.sql('"imagegen"')).not.toContain(":schema");
      expect(m.sql('"imagegen"')).not.toBe(m.sql('"other"'));
    }
  });

  it("the migration files are the index's, numbered 1, 2, 3 ... in order and named by their version", () => {
    const files = readdirSync(DIR)
      .filter((f) => f.endsWith(".sql.ts"))
      .sort();
    expect(
      MIGRATIONS.map((m) => m.file),
      "a migration file that src/postgres/migrations/index.ts does not list",
    ).toEqual(files);
    for (const [i, m] of MIGRATIONS.entries()) {
      expect(m.version).toBe(i + 1);
      expect(m.file.startsWith(`${String(m.version).padStart(4, "0")}_`), m.file).toBe(true);
    }
  });
});
