"""Chainlit (PyPI `chainlit`), with the scripted model (scripted.py): each reply streamed token
by token over Socket.IO and drawn as Markdown in the page, code blocks with no `<pre>` (a header
with a label and a copy button of their own, then a `<code>`), and a copy button per message
beside it. Run with `chainlit run chainlit_app.py --headless --port PORT` in a folder of its own
(Chainlit writes its config there)."""

import os
import sys

import chainlit as cl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scripted  # noqa: E402


@cl.on_message
async def answer(message: cl.Message):
    reply = cl.Message(content="")
    for piece in scripted.chunks(scripted.reply_to(message.content)):
        await reply.stream_token(piece)
    await reply.send()
