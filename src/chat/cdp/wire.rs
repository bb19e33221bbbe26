//! The tab's network, heard over CDP: the bodies of the page's streamed responses (fetch, XHR,
//! EventSource) as they arrive, the text frames its WebSockets receive, and the bodies of the
//! requests it sends (one carries the message), since the last message went. What they say is reassembled by `chat::wire` and proved by `read.rs`; this
//! file only hears and keeps, bounded. It decides nothing and changes nothing on the page.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use base64::Engine;
use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::network::{
    EventDataReceived, EventLoadingFinished, EventRequestWillBeSent, EventResponseReceived,
    EventWebSocketFrameReceived, EventWebSocketFrameSent, GetResponseBodyParams, RequestId,
    ResourceType, StreamResourceContentParams,
};
use futures::StreamExt;

use super::bounded;
use crate::catalog::Failure;
use crate::chat::wire::Heard;

/// How many exchanges are kept since the last message (a page polls, loads icons, reports
/// telemetry; the reply's stream is among the first after the send).
const MAX_EXCHANGES: usize = 64;
/// How many bytes one exchange keeps (a reply is far smaller; a video is not a reply).
const MAX_BYTES: usize = 8 << 20;
/// How many finished requests are remembered since the last message.
const MAX_FINISHED: usize = 4096;
/// WebSocket text frames carry opcode 1.
const TEXT_FRAME: f64 = 1.0;

/// One exchange heard: a response's body so far, or a socket's frames.
#[derive(Debug, Default)]
struct Exchange {
    /// The body buffered before streaming was switched on (`streamResourceContent`), or the
    /// whole body read after it finished.
    head: Vec<u8>,
    /// The body's pieces that came after streaming was switched on.
    tail: Vec<u8>,
    /// A socket's text frames since the last message.
    frames: Vec<String>,
    socket: bool,
    /// The response has come whole (`loadingFinished`).
    finished: bool,
}

/// A request with a body the site answered with a refusal's status.
#[derive(Clone, Debug)]
pub(super) struct Refused {
    /// The request's id (its answer's body is heard under it).
    pub id: String,
    pub status: u16,
    /// The `Retry-After` header as the site wrote it (seconds, or an HTTP date).
    pub retry_after: Option<String>,
    /// The body the page sent (the message's request carries the message).
    pub body: Vec<u8>,
}

/// The statuses a site refuses a message with: too many requests, payment required (a plan
/// unpaid or lapsed), and its server failing.
fn refusal_status(status: u16) -> bool {
    status == 429 || status == 402 || (500..=599).contains(&status)
}

/// What the network said since the last message, by request id.
#[derive(Clone, Default)]
pub(super) struct Wire {
    heard: Arc<Mutex<HashMap<String, Exchange>>>,
    /// Requests heard to finish, whatever their kind: the events come on separate streams, so
    /// a request's end may be heard before its response.
    finished: Arc<Mutex<std::collections::HashSet<String>>>,
    /// The bodies of the requests the page sent since the last message (one carried it).
    posts: Arc<Mutex<Vec<Vec<u8>>>>,
    /// The same bodies by request id, for a refusal's answer to be told apart from telemetry's.
    posted: Arc<Mutex<HashMap<String, Vec<u8>>>>,
    /// The requests with a body the site answered with a refusal's status since the last
    /// message (429, 5xx): the message's own request among them is the site saying no, with
    /// no words on the page needed.
    refused: Arc<Mutex<Vec<Refused>>>,
    /// A message was once not found among the requests: the page sends them in a form keyless
    /// cannot read, and later ones are not waited for.
    blind: Arc<std::sync::atomic::AtomicBool>,
}

impl Wire {
    /// Forgets what was heard (a new message is about to go). A socket stays known: its next
    /// frames are the reply's.
    pub(super) fn mark(&self) {
        if let Ok(mut heard) = self.heard.lock() {
            heard.retain(|_, e| e.socket);
            for e in heard.values_mut() {
                e.frames.clear();
            }
        }
        if let Ok(mut finished) = self.finished.lock() {
            finished.clear();
        }
        if let Ok(mut posts) = self.posts.lock() {
            posts.clear();
        }
        if let Ok(mut posted) = self.posted.lock() {
            posted.clear();
        }
        if let Ok(mut refused) = self.refused.lock() {
            refused.clear();
        }
    }

    /// The requests with a body refused since the last message (429, 5xx).
    pub(super) fn refused(&self) -> Vec<Refused> {
        self.refused.lock().map(|r| r.clone()).unwrap_or_default()
    }

    /// Whether a message was once not found among the requests.
    pub(super) fn blind(&self) -> bool {
        self.blind.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub(super) fn set_blind(&self) {
        self.blind.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// The bodies of the requests the page sent since the last message.
    pub(super) fn posts(&self) -> Vec<Vec<u8>> {
        self.posts.lock().map(|p| p.clone()).unwrap_or_default()
    }

    /// Reads whole the responses that finished without being heard as they streamed (they
    /// ended before streaming was switched on for them).
    pub(super) async fn complete(&self, page: &Page) {
        let missing: Vec<String> = {
            let (Ok(heard), Ok(finished)) = (self.heard.lock(), self.finished.lock()) else {
                return;
            };
            heard
                .iter()
                .filter(|(id, e)| {
                    !e.socket
                        && e.head.is_empty()
                        && e.tail.is_empty()
                        && (e.finished || finished.contains(*id))
                })
                .map(|(id, _)| id.clone())
                .collect()
        };
        for id in missing {
            let params = GetResponseBodyParams::new(RequestId::new(id.clone()));
            if let Ok(body) = bounded(page.execute(params), "read a response").await {
                let bytes = if body.result.base64_encoded {
                    decode(&body.result.body)
                } else {
                    body.result.body.clone().into_bytes()
                };
                self.with(&id, |e| {
                    if e.tail.is_empty() && e.head.is_empty() && bytes.len() <= MAX_BYTES {
                        e.head = bytes;
                    }
                });
            }
        }
    }

    /// What was heard since the last message, one item per exchange.
    pub(super) fn heard(&self) -> Vec<Heard> {
        let Ok(heard) = self.heard.lock() else {
            return Vec::new();
        };
        heard
            .values()
            .map(|e| {
                if e.socket {
                    Heard::Frames(e.frames.clone())
                } else {
                    let mut body = e.head.clone();
                    body.extend_from_slice(&e.tail);
                    Heard::Body(body)
                }
            })
            .collect()
    }

    /// The body of one response heard since the last message, as far as it came.
    pub(super) fn body_of(&self, id: &str) -> Option<Vec<u8>> {
        let heard = self.heard.lock().ok()?;
        let e = heard.get(id).filter(|e| !e.socket)?;
        let mut body = e.head.clone();
        body.extend_from_slice(&e.tail);
        Some(body)
    }

    fn with(&self, id: &str, change: impl FnOnce(&mut Exchange)) {
        if let Ok(mut heard) = self.heard.lock()
            && let Some(e) = heard.get_mut(id)
        {
            change(e);
        }
    }

    /// Starts listening on `page` (its network events are on already).
    pub(super) async fn listen(&self, page: &Page) -> Result<(), Failure> {
        let mut responses = bounded(
            page.event_listener::<EventResponseReceived>(),
            "listen for the page's responses",
        )
        .await?;
        let wire = self.clone();
        let streamer = page.clone();
        tokio::spawn(async move {
            while let Some(event) = responses.next().await {
                if !matches!(
                    event.r#type,
                    ResourceType::Fetch | ResourceType::Xhr | ResourceType::EventSource
                ) {
                    continue;
                }
                let id = event.request_id.inner().clone();
                if let Ok(status) = u16::try_from(event.response.status)
                    && refusal_status(status)
                    && let Some(body) = wire.posted.lock().ok().and_then(|p| p.get(&id).cloned())
                    && let Ok(mut refused) = wire.refused.lock()
                    && refused.len() < MAX_EXCHANGES
                {
                    let retry_after =
                        event
                            .response
                            .headers
                            .inner()
                            .as_object()
                            .and_then(|headers| {
                                headers
                                    .iter()
                                    .find(|(name, _)| name.eq_ignore_ascii_case("retry-after"))
                                    .and_then(|(_, value)| value.as_str().map(str::to_string))
                            });
                    refused.push(Refused {
                        id: id.clone(),
                        status,
                        retry_after,
                        body,
                    });
                }
                if let Ok(mut heard) = wire.heard.lock() {
                    if heard.len() >= MAX_EXCHANGES {
                        continue;
                    }
                    heard.insert(id.clone(), Exchange::default());
                }
                // The body's pieces come with `dataReceived` from now on; what came before is
                // handed back buffered. A request that ended meanwhile is read whole at its end.
                let wire = wire.clone();
                let page = streamer.clone();
                tokio::spawn(async move {
                    let params = StreamResourceContentParams::new(event.request_id.clone());
                    if let Ok(streamed) = bounded(page.execute(params), "stream a response").await {
                        let bytes = decode(streamed.result.buffered_data.as_ref());
                        wire.with(&id, |e| e.head = bytes);
                    }
                });
            }
        });
        let mut data = bounded(
            page.event_listener::<EventDataReceived>(),
            "listen for the page's response data",
        )
        .await?;
        let wire = self.clone();
        tokio::spawn(async move {
            while let Some(event) = data.next().await {
                let Some(piece) = event.data.as_ref() else {
                    continue;
                };
                let bytes = decode(piece.as_ref());
                wire.with(event.request_id.inner(), |e| {
                    if e.head.len() + e.tail.len() + bytes.len() <= MAX_BYTES {
                        e.tail.extend_from_slice(&bytes);
                    }
                });
            }
        });
        let mut finished = bounded(
            page.event_listener::<EventLoadingFinished>(),
            "listen for the page's finished requests",
        )
        .await?;
        let wire = self.clone();
        tokio::spawn(async move {
            while let Some(event) = finished.next().await {
                let id = event.request_id.inner().clone();
                wire.with(&id, |e| e.finished = true);
                if let Ok(mut all) = wire.finished.lock()
                    && all.len() < MAX_FINISHED
                {
                    all.insert(id);
                }
            }
        });
        let mut requests = bounded(
            page.event_listener::<EventRequestWillBeSent>(),
            "listen for the page's requests",
        )
        .await?;
        let wire = self.clone();
        tokio::spawn(async move {
            while let Some(event) = requests.next().await {
                let Some(entries) = event.request.post_data_entries.as_ref() else {
                    continue;
                };
                let mut body = Vec::new();
                for entry in entries {
                    if let Some(bytes) = entry.bytes.as_ref() {
                        body.extend(decode(bytes.as_ref()));
                    }
                }
                if let Ok(mut posted) = wire.posted.lock()
                    && posted.len() < MAX_EXCHANGES
                    && body.len() <= MAX_BYTES
                {
                    posted.insert(event.request_id.inner().clone(), body.clone());
                }
                if let Ok(mut posts) = wire.posts.lock()
                    && posts.len() < MAX_EXCHANGES
                    && body.len() <= MAX_BYTES
                {
                    posts.push(body);
                }
            }
        });
        let mut sent = bounded(
            page.event_listener::<EventWebSocketFrameSent>(),
            "listen for the page's sent socket frames",
        )
        .await?;
        let wire = self.clone();
        tokio::spawn(async move {
            while let Some(event) = sent.next().await {
                if event.response.opcode == TEXT_FRAME
                    && let Ok(mut posts) = wire.posts.lock()
                    && posts.len() < MAX_EXCHANGES
                {
                    posts.push(event.response.payload_data.clone().into_bytes());
                }
            }
        });
        let mut frames = bounded(
            page.event_listener::<EventWebSocketFrameReceived>(),
            "listen for the page's socket frames",
        )
        .await?;
        let wire = self.clone();
        tokio::spawn(async move {
            while let Some(event) = frames.next().await {
                if event.response.opcode != TEXT_FRAME {
                    continue;
                }
                let Ok(mut heard) = wire.heard.lock() else {
                    continue;
                };
                let id = event.request_id.inner().clone();
                if !heard.contains_key(&id) && heard.len() >= MAX_EXCHANGES {
                    continue;
                }
                let e = heard.entry(id).or_insert_with(|| Exchange {
                    socket: true,
                    ..Exchange::default()
                });
                let size: usize = e.frames.iter().map(String::len).sum();
                if size + event.response.payload_data.len() <= MAX_BYTES {
                    e.frames.push(event.response.payload_data.clone());
                }
            }
        });
        Ok(())
    }
}

/// Base64 as CDP sends bodies; nothing for what is not base64.
fn decode(text: &str) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .unwrap_or_default()
}
