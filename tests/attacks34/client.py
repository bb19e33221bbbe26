"""An outside MCP client for tests/it/attacks34.rs: the official Python SDK (pinned in
tests/mcp/requirements.txt) driving `keyless mcp` over standard input and output.

Usage: python client.py PLAN.json. The plan names the server's command, arguments and
environment, how the client answers elicitation (`elicit`: absent for a client that declares
none; `accept`, `accept_false`, `decline` or `cancel`), and the calls in groups: the calls of
one group are made at once, the groups one after the other. With `mark_on_progress` (a path),
the client writes that file when the first progress notification of the type
`mark_on_type` (any type when absent) arrives, and goes on waiting (the test kills it there). Prints one JSON object: the tools with their input schemas, the
questions asked, and each call's result (or the exception it raised) with its progress.
"""

import asyncio
import json
import os
import sys
import traceback

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client


async def main(plan):
    env = dict(os.environ)
    env.update(plan.get("env", {}))
    server = StdioServerParameters(
        command=plan["command"], args=plan["args"], env=env, cwd=plan.get("cwd")
    )
    out = {"results": [], "asked": []}
    mode = plan.get("elicit")

    async def answer(context, params):
        out["asked"].append(
            {
                "message": params.message,
                "schema": getattr(params, "requested_schema", None),
            }
        )
        if mode == "accept":
            return types.ElicitResult(action="accept", content={"approve": True})
        if mode == "accept_false":
            return types.ElicitResult(action="accept", content={"approve": False})
        if mode == "decline":
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="cancel")

    elicitation = answer if mode else None
    mark = plan.get("mark_on_progress")
    with open(plan["server_log"], "w") as log:
        async with stdio_client(server, errlog=log) as (read, write):
            async with ClientSession(read, write, elicitation_callback=elicitation) as session:
                await session.initialize()
                tools = await session.list_tools()
                out["tools"] = {tool.name: tool.input_schema for tool in tools.tools}

                async def call(spec):
                    progress = []

                    async def on_progress(done, total, message):
                        try:
                            progress.append(json.loads(message) if message else None)
                        except ValueError:
                            progress.append({"unparsed": message})
                        wanted = plan.get("mark_on_type")
                        kind = (progress[-1] or {}).get("type")
                        if mark and not os.path.exists(mark) and wanted in (None, kind):
                            with open(mark, "w") as f:
                                f.write(json.dumps(progress[-1]))

                    await asyncio.sleep(spec.get("delay", 0))
                    try:
                        result = await session.call_tool(
                            spec["tool"],
                            spec["arguments"],
                            read_timeout_seconds=spec.get("timeout", 120),
                            progress_callback=on_progress if spec.get("progress", True) else None,
                        )
                    except Exception as e:  # a protocol error is an answer too
                        return {
                            "tool": spec["tool"],
                            "exception": "".join(traceback.format_exception_only(e)).strip(),
                            "progress": progress,
                        }
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
    print(json.dumps(out))


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        asyncio.run(main(json.load(f)))
