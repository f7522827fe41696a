import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const tsx = createRequire(import.meta.url).resolve("tsx/cli");
const script = fileURLToPath(new URL("../../scripts/start.ts", import.meta.url));

describe("npm start (scripts/start.ts)", () => {
  it("S1, S9: prints a ck_test_ key once with a curl line that works, and exits cleanly on SIGINT", async () => {
    const child = spawn(process.execPath, [tsx, script], { env: { ...process.env, PORT: "0", HOST: "127.0.0.1" } });
    let out = "";
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on("exit", (code, signal) => resolve({ code, signal })),
    );
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes("Ctrl-C")) resolve();
      });
      child.on("exit", () => reject(new Error(`exited early:\n${out}`)));
    });
    const keys = out.match(/ck_test_[A-Za-z0-9_-]{32}/g) ?? [];
    expect(new Set(keys).size).toBe(1);
    const curl = out.split("\n").find((line) => line.includes("curl -s") && line.includes("/api/ping")) ?? "";
    const match = /curl -s (\S+) -H 'Authorization: Bearer (\S+)'/.exec(curl);
    expect(match).not.toBeNull();
    const res = await fetch(match?.[1] as string, { headers: { authorization: `Bearer ${match?.[2]}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true, authProvider: "api_key" });

    child.kill("SIGINT");
    const { code, signal } = await exited;
    // In-flight work finished and the socket closed, then the process ended the way SIGINT ends it.
    expect(out).toContain("Server closed");
    expect(signal === "SIGINT" || code === 130).toBe(true);
  });
});
