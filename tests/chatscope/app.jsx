// A chat page as chatscope's documentation builds one: its MainContainer, ChatContainer,
// MessageList and MessageInput, the reply streamed from /api/chat (a plain text body read as
// it arrives). Enter sends; Shift+Enter breaks the line (the kit's own keypress handling). What
// is sent is the composer's innerText, as the kit hands it to onSend.
import React, { useState } from "react";
import { createRoot } from "react-dom/client";
import "@chatscope/chat-ui-kit-styles/dist/default/styles.min.css";
import {
  MainContainer,
  ChatContainer,
  MessageList,
  Message,
  MessageInput,
  TypingIndicator,
} from "@chatscope/chat-ui-kit-react";

function App() {
  const [messages, setMessages] = useState([]);
  const [typing, setTyping] = useState(false);

  async function send(html, textContent, innerText) {
    const text = innerText;
    setMessages((m) => [...m, { direction: "outgoing", text }, { direction: "incoming", text: "" }]);
    setTyping(true);
    const response = await fetch("/api/chat", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ message: text }),
    });
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let shown = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      shown += decoder.decode(value, { stream: true });
      const now = shown;
      setMessages((m) => [...m.slice(0, -1), { direction: "incoming", text: now }]);
    }
    setTyping(false);
  }

  return (
    <div style={{ position: "relative", height: "94vh" }}>
      <MainContainer>
        <ChatContainer>
          <MessageList typingIndicator={typing ? <TypingIndicator content="Thinking" /> : null}>
            {messages.map((m, i) => (
              <Message key={i} model={{ direction: m.direction, position: "single", type: "text" }}>
                <Message.TextContent text={m.text} />
              </Message>
            ))}
          </MessageList>
          <MessageInput placeholder="Type message here" onSend={send} attachButton={false} />
        </ChatContainer>
      </MainContainer>
    </div>
  );
}

createRoot(document.getElementById("root")).render(<App />);
