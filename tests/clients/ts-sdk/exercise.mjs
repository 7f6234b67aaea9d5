// Drive one MCP server with the official TypeScript SDK's client, as a third-party agent would, and
// print what it saw as one JSON line on stdout (tests/servers/test_third_party_client.py reads it).
//
//   node exercise.mjs http <url> <call.json>
//   node exercise.mjs stdio <call.json> <command> [args...]
//
// <call.json> is {"tool": name, "arguments": {...}}: one call the server must answer without error.
// The SDK checks what it reads against its own schemas: a malformed initialize answer, tool list or
// call result throws, and so does structured content that does not fit the tool's output schema (the
// client validates it with its own JSON Schema validator). A throw is reported, not swallowed.
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, ...rest] = process.argv.slice(2);
let transport;
let callPath;
if (mode === "http") {
  const [url, path] = rest;
  transport = new StreamableHTTPClientTransport(new URL(url));
  callPath = path;
} else if (mode === "stdio") {
  const [path, command, ...args] = rest;
  transport = new StdioClientTransport({ command, args, env: { ...process.env }, stderr: "pipe" });
  callPath = path;
} else {
  console.error("usage: exercise.mjs http <url> <call.json> | stdio <call.json> <command> [args...]");
  process.exit(2);
}
const call = JSON.parse(readFileSync(callPath, "utf8"));

const report = {};
const client = new Client({ name: "mcpbench-ts-sdk-exercise", version: "0.1.0" });
try {
  await client.connect(transport);
  report.server = client.getServerVersion();
  report.protocolVersion = transport.protocolVersion ?? null; // the HTTP transport keeps the negotiated one
  await client.ping();
  const tools = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  report.tools = tools.map((t) => ({
    name: t.name,
    described: typeof t.description === "string" && t.description.length > 0,
    inputIsObject: t.inputSchema?.type === "object",
    annotated: t.annotations !== undefined,
    outputSchema: t.outputSchema !== undefined,
  }));
  const result = await client.callTool({ name: call.tool, arguments: call.arguments });
  report.call = {
    isError: result.isError === true,
    contentTypes: (result.content ?? []).map((c) => c.type),
    text: (result.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n").slice(0, 2000),
    structured: result.structuredContent !== undefined,
  };
  try {
    const missing = await client.callTool({ name: "no_such_tool", arguments: {} });
    report.unknownTool = { isError: missing.isError === true, threw: null };
  } catch (err) {
    report.unknownTool = { isError: false, threw: String(err?.message ?? err) };
  }
} catch (err) {
  report.error = String(err?.stack ?? err);
} finally {
  await client.close().catch(() => {});
}
process.stdout.write(JSON.stringify(report) + "\n");
process.exit(report.error ? 1 : 0);
