// A command agent written against the official TypeScript MCP SDK, as an agent builder outside Python
// would write one: it reads the goal on stdin, connects to the run's gateway (MCPBENCH_MCP_URL) with the
// SDK's Streamable HTTP client, and does what the goal of pg-ship-order-1042 asks: find the order,
// then mark it shipped, retrying a call that failed (the task injects a rate limit on its first write).
// tests/agents/test_ts_sdk_agent.py runs it in the sandbox. It prints each step on stderr.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

let goal = "";
for await (const chunk of process.stdin) goal += chunk;
const order = Number(/Order (\d+)/.exec(goal)?.[1]);
if (!Number.isInteger(order)) throw new Error(`no order number in the goal: ${goal}`);

const client = new Client({ name: "mcpbench-ts-sdk-agent", version: "0.1.0" });
await client.connect(new StreamableHTTPClientTransport(new URL(process.env.MCPBENCH_MCP_URL)));
const { tools } = await client.listTools();
console.error(`tools: ${tools.map((t) => t.name).join(", ")}`);

const text = (result) => result.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
const found = await client.callTool({ name: "query", arguments: { sql: `SELECT id, status FROM orders WHERE id = ${order}` } });
if (found.isError) throw new Error(`query failed: ${text(found)}`);
console.error(`order ${order}: ${text(found)}`);

for (let attempt = 1; attempt <= 3; attempt++) {
  const done = await client.callTool({ name: "execute", arguments: { sql: `UPDATE orders SET status = 'shipped' WHERE id = ${order}` } });
  console.error(`execute, attempt ${attempt}: ${done.isError ? "error" : "ok"}: ${text(done)}`);
  if (!done.isError) break;
  await new Promise((resolve) => setTimeout(resolve, 100));
}
await client.close();
