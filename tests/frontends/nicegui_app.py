"""NiceGUI's chat messages (PyPI `nicegui`), with the scripted model (scripted.py). NiceGUI turns
a reply's Markdown into HTML in Python (its `ui.markdown`, with markdown2) and sends the page
only that HTML over its WebSocket, updated as the reply streams; the composer is a text area
with a send button that is only an icon. Usage: nicegui_app.py PORT."""

import asyncio
import os
import sys

from nicegui import ui

sys.path.insert(0, os.path.dirname(__file__))
import scripted  # noqa: E402


@ui.page("/")
def page():
    messages = ui.column().classes("w-full")

    async def send():
        text = composer.value
        composer.value = ""
        with messages:
            with ui.chat_message(name="You", sent=True):
                ui.markdown(text)
            with ui.chat_message(name="Model", sent=False):
                shown = ui.markdown("")
        reply = ""
        # scripted.chunks sleeps between pieces: read them off the event loop.
        pieces = await asyncio.to_thread(lambda: list(scripted.chunks(scripted.reply_to(text))))
        for piece in pieces:
            reply += piece
            shown.content = reply
            await asyncio.sleep(0.02)

    with ui.footer().classes("bg-white"):
        with ui.row().classes("w-full items-center"):
            composer = ui.textarea(placeholder="Message the model").classes("flex-grow")
            ui.button(icon="send", on_click=send).props("flat round")


ui.run(host="127.0.0.1", port=int(sys.argv[1]), reload=False, show=False, title="Scripted chat")
