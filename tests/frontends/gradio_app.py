"""Gradio's chat interface, with the scripted model (scripted.py)."""

import os
import sys

import gradio as gr

sys.path.insert(0, os.path.dirname(__file__))
import scripted  # noqa: E402


def respond(message, history):
    text = scripted.reply_to(message)
    shown = ""
    for piece in scripted.chunks(text):
        shown += piece
        yield shown


# A copy button on each message, as many Gradio chat apps show one.
demo = gr.ChatInterface(
    respond,
    type="messages",
    title="Scripted chat",
    chatbot=gr.Chatbot(type="messages", show_copy_button=True),
)

if __name__ == "__main__":
    demo.queue().launch(server_name="127.0.0.1", server_port=int(sys.argv[1]), share=False, show_api=False)
