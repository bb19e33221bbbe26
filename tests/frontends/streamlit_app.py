"""Streamlit's chat elements, with the scripted model (scripted.py)."""

import os
import sys

import streamlit as st

sys.path.insert(0, os.path.dirname(__file__))
import scripted  # noqa: E402

st.title("Scripted chat")
if "messages" not in st.session_state:
    st.session_state.messages = []
for message in st.session_state.messages:
    with st.chat_message(message["role"]):
        st.markdown(message["content"])
if prompt := st.chat_input("Message the model"):
    st.session_state.messages.append({"role": "user", "content": prompt})
    with st.chat_message("user"):
        st.markdown(prompt)
    with st.chat_message("assistant"):
        answer = st.write_stream(scripted.chunks(scripted.reply_to(prompt)))
    st.session_state.messages.append({"role": "assistant", "content": answer})
