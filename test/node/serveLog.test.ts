/**
 * `imagegen-pricing serve --log` (S9): one line per request, through the server's `onResponse`,
 * for every request node:http parsed: those the server answered and those `serve()` answered itself
 * (a request without Host, an unknown expectation, CONNECT), each with its answer's `Request-Id`.
 */
import { describe, expect, it } from "vitest";
import { runServe } from "../../src/cli/serve.js";
import { type RawAnswer, rawClient, until } from "./helpers.js";

type Line = {
  event: string;
  method?: string;
  path?: string;
  status?: number;
  requestId?: string;
  url?: string;
};

describe("serve --log", () => {
  it("S9: logs every request, also those serve() answers itself, each with its Request-Id", async () => {
    const lines: Line[] = [];
    let buffered = "";
    let stop: (by: string) => void = () => {};
    const stopped = new Promise<string>((resolve) => {
      stop = resolve;
    });
    const exit = runServe(
      ["--port", "0", "--log", "--json"],
      {
        out: (text) => {
          buffered += text;
          const parts = buffered.split("\n");
          buffered = parts.pop() ?? "";
          for (const part of parts) {
            lines.push(JSON.parse(part) as Line);
          }
        },
        err: () => {},
        readFile: async () => "",
        readStdin: async () => "",
      },
      { stop: stopped },
    );
    try {
      expect(await until(() => lines.some((l) => l.event === "listening"))).toBe(true);
      const url = new URL(lines.find((l) => l.event === "listening")?.url ?? "");
      const port = Number(url.port);

      const exchange = async (bytes: string): Promise<RawAnswer | undefined> => {
        const client = rawClient(port);
        await client.write(bytes);
        const [answer] = await client.answered(1);
        client.socket.destroy();
        return answer;
      };
      const sent: [string, string, number, RawAnswer | undefined][] = [
        ["GET", "/api/ping", 401, await exchange("GET /api/ping?k=1 HTTP/1.1\r\nHost: t\r\n\r\n")],
        ["GET", "/api/ping", 400, await exchange("GET /api/ping HTTP/1.1\r\n\r\n")],
        [
          "GET",
          "/openapi.json",
          417,
          await exchange("GET /openapi.json HTTP/1.1\r\nHost: t\r\nExpect: foo\r\n\r\n"),
        ],
        [
          "CONNECT",
          "example.com:443",
          405,
          await exchange("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com\r\n\r\n"),
        ],
      ];
      expect(
        await until(() => lines.filter((l) => l.event === "request").length >= sent.length),
      ).toBe(true);
      const logged = lines.filter((l) => l.event === "request");
      expect(logged.map((l) => [l.method, l.path, l.status])).toEqual(
        sent.map(([method, path, status]) => [method, path, status]),
      );
      for (const [i, [, , status, answer]] of sent.entries()) {
        expect(answer?.status).toBe(status);
        expect(answer?.headers["request-id"]).toMatch(/^req_/);
        expect(logged[i]?.requestId).toBe(answer?.headers["request-id"]);
      }
    } finally {
      stop("test");
    }
    expect(await exit).toBe(0);
  });
});
