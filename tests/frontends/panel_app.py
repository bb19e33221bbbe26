"""Panel's chat interface (PyPI `panel`), with the scripted model (scripted.py). Panel draws each
message's Markdown into HTML in Python and sends the page that HTML over its WebSocket; each
message has a copy control that is only an icon; its composer is a text area where Enter sends
and Shift+Enter breaks the line. Usage: panel_app.py PORT."""

import os
import sys

import panel as pn

sys.path.insert(0, os.path.dirname(__file__))
import scripted  # noqa: E402


def respond(contents, user, instance):
    shown = ""
    for piece in scripted.chunks(scripted.reply_to(contents)):
        shown += piece
        yield shown


def page():
    return pn.chat.ChatInterface(callback=respond, callback_user="Model", sizing_mode="stretch_both")


if __name__ == "__main__":
    port = int(sys.argv[1])
    pn.serve(
        page,
        port=port,
        address="127.0.0.1",
        websocket_origin=[f"127.0.0.1:{port}"],
        show=False,
        title="Scripted chat",
    )
