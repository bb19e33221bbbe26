"""A real MCP client (the official Python SDK, pinned in requirements.txt) driving `keyless mcp`
for tests/it/mcp.rs.

Usage: python client.py PLAN.json. The plan names the server's command, arguments and
environment, and the calls in groups: the calls of one group are made at once, the groups one
after the other. Prints one JSON object: the tools listed (names and input schemas), the
questions the server asked through elicitation (with `"elicit": "accept"` in the plan the
client declares elicitation and approves every question), and each call's result with the progress notifications that
arrived for it (their messages, which keyless sends as JSON). A call may carry `after` (seconds
to wait before it is made) and `timeout` (seconds before the client gives up on it and, as the SDK
does, tells the server with `notifications/cancelled`); a call given up on records its `error`.
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client


async def main(plan):
    env = dict(os.environ)
    env.update(plan.get("env", {}))
    server = StdioServerParameters(command=plan["command"], args=plan["args"], env=env)
    out = {"results": [], "asked": []}

    async def approve(context, params):
        out["asked"].append(params.message)
        return types.ElicitResult(action="accept", content={"approve": True})

    # Without a callback the client declares no elicitation.
    elicitation = approve if plan.get("elicit") == "accept" else None
    with open(plan["server_log"], "w") as log:
        async with stdio_client(server, errlog=log) as (read, write):
            async with ClientSession(read, write, elicitation_callback=elicitation) as session:
                await session.initialize()
                tools = await session.list_tools()
                out["tools"] = sorted(tool.name for tool in tools.tools)
                out["schemas"] = {tool.name: tool.input_schema for tool in tools.tools}

                async def call(spec):
                    progress = []

                    async def on_progress(done, total, message):
                        progress.append(json.loads(message) if message else None)

                    await asyncio.sleep(spec.get("after", 0))
                    try:
                        result = await session.call_tool(
                            spec["tool"],
                            spec["arguments"],
                            read_timeout_seconds=spec.get("timeout", plan.get("timeout", 240)),
                            progress_callback=on_progress,
                        )
                    except Exception as e:  # given up on: what the client saw
                        return {"tool": spec["tool"], "error": str(e), "progress": progress}
                    return {
                        "tool": spec["tool"],
                        "is_error": bool(getattr(result, "is_error", False)),
                        "structured": getattr(result, "structured_content", None),
                        "text": [
                            block.text
                            for block in getattr(result, "content", [])
                            if getattr(block, "text", None) is not None
                        ],
                        "progress": progress,
                    }

                for group in plan["calls"]:
                    out["results"].extend(await asyncio.gather(*(call(c) for c in group)))
    out["protocol"] = str(getattr(session, "protocol_version", "") or "")
    print(json.dumps(out))


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        asyncio.run(main(json.load(f)))
