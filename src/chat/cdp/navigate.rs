//! Opening an address in the chat page, and telling a page that did not load from a page that
//! is not a chat: nothing answering, a name that does not resolve, a refused certificate, or an
//! HTTP error status is `KA_PAGE_NOT_LOADED`, with the address and the browser's error, within
//! seconds; never a wait of `PAGE_READY` for a composer that cannot come, then "no Composer
//! element".

use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::page::NavigateParams;

use super::CDP_TIMEOUT;
use super::page_api::PageApi;
use super::tab::Tab;
use crate::catalog::{Code, Failure};

/// How long an HTTP error page may take to turn out to be a chat after all (a site that draws
/// its app over an error status) before it counts as a page that did not load.
pub(super) const ERROR_STATUS_GRACE: Duration = Duration::from_secs(2);

/// How a navigation ended.
enum Navigated {
    Loaded,
    /// The browser's error, and the loader whose document's status may say more.
    Failed {
        error: String,
        loader: Option<String>,
    },
    /// Not finished within the CDP time limit.
    StillLoading,
}

/// The lowest HTTP status that is an error.
const FIRST_ERROR_STATUS: u16 = 400;

/// The browser's network errors a person can act on, with what they mean.
const NET_ERRORS: &[(&str, &str)] = &[
    (
        "net::ERR_CONNECTION_REFUSED",
        "nothing answers at that address (is the server running, the port right?)",
    ),
    (
        "net::ERR_UNSAFE_PORT",
        "the browser never connects to this port (it is on its list of unsafe ports); use another",
    ),
    (
        "net::ERR_NAME_NOT_RESOLVED",
        "the host name does not resolve (a typo in the address, or no DNS)",
    ),
    ("net::ERR_INTERNET_DISCONNECTED", "the machine is offline"),
    (
        "net::ERR_ADDRESS_UNREACHABLE",
        "the address cannot be reached from this machine",
    ),
    ("net::ERR_CONNECTION_TIMED_OUT", "the server did not answer"),
    ("net::ERR_TIMED_OUT", "the server did not answer"),
    (
        "net::ERR_PROXY_CONNECTION_FAILED",
        "the proxy the browser uses does not answer",
    ),
    ("net::ERR_CERT_", "the site's certificate was refused"),
    ("net::ERR_SSL_", "the secure connection could not be made"),
    (
        "net::ERR_EMPTY_RESPONSE",
        "the server closed the connection without an answer",
    ),
];

/// The browser's errors that say the connection itself failed (nothing answered, or what
/// answered dropped the connection), not that the address is wrong.
const CONNECTION_ERRORS: &[&str] = &[
    "net::ERR_INTERNET_DISCONNECTED",
    "net::ERR_NETWORK_CHANGED",
    "net::ERR_NAME_NOT_RESOLVED",
    "net::ERR_ADDRESS_UNREACHABLE",
    "net::ERR_PROXY_CONNECTION_FAILED",
    "net::ERR_CONNECTION_",
    "net::ERR_SOCKET_NOT_CONNECTED",
    "net::ERR_EMPTY_RESPONSE",
    "net::ERR_TIMED_OUT",
    "net::ERR_NETWORK_IO_SUSPENDED",
];

/// Whether the address being opened showed the chat earlier in this session: then a failed
/// connection is the network's or the site's trouble (waited out, asked again), not a wrong
/// address.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Opened {
    /// First time: a failure is the address's (`KA_PAGE_NOT_LOADED`).
    First,
    /// Opened before: a failed connection is `KA_NETWORK_OFFLINE`.
    Before,
}

/// The chat, which loaded before, cannot be reached now: the network or the site is down.
fn unreachable(url: &str, error: &str) -> Failure {
    Failure::new(
        Code::NetworkOffline,
        format!(
            "the chat page {url}, which loaded before, cannot be reached now ({error}): the network or the site is down"
        ),
    )
}

/// A page that did not load: the address, the browser's error, what it means.
pub(super) fn not_loaded(url: &str, error: &str) -> Failure {
    let meaning = NET_ERRORS
        .iter()
        .find(|(prefix, _)| error.starts_with(prefix))
        .map(|(_, meaning)| format!(": {meaning}"))
        .unwrap_or_default();
    Failure::new(
        Code::PageNotLoaded,
        format!(
            "the chat page {url} did not load ({error}){meaning}. Check the address (--url, Browser.Url or the site's url in selectors.json) and the network."
        ),
    )
}

/// A page that answered with an HTTP error status and showed no chat.
pub(super) fn error_status(url: &str, status: u16) -> Failure {
    Failure::new(
        Code::PageNotLoaded,
        format!(
            "the chat page {url} did not load: the server answered HTTP {status}{} and the page shows no chat. Check the address (--url, Browser.Url or the site's url in selectors.json).",
            reason_phrase(status)
                .map(|r| format!(" ({r})"))
                .unwrap_or_default()
        ),
    )
}

fn reason_phrase(status: u16) -> Option<&'static str> {
    Some(match status {
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        410 => "Gone",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => return None,
    })
}

impl Tab {
    /// Opens `url` in the chat page; `what` names the step for a failure that is the
    /// browser's. A navigation the browser reports as failed, or whose server sent nothing
    /// within the CDP time limit, is `KA_PAGE_NOT_LOADED`, or `KA_NETWORK_OFFLINE` for an
    /// address `opened` before whose connection failed; one that answered and is slow to
    /// finish loading is left to the wait for the composer.
    pub(super) fn navigate(&self, url: &str, what: &str, opened: Opened) -> Result<(), Failure> {
        // Only this navigation's documents count, and only the new page's failed requests (the
        // page before it, cut off by an outage, is gone with them).
        if let Ok(mut documents) = self.documents.lock() {
            documents.clear();
        }
        if let Ok(mut failed) = self.failed_requests.lock() {
            failed.clear();
        }
        let page = self.page.clone();
        let target = url.to_string();
        let what = what.to_string();
        let navigated = self.block(async move {
            let navigate = page.execute(NavigateParams::new(target));
            Ok::<_, super::DriverError>(match tokio::time::timeout(CDP_TIMEOUT, navigate).await {
                Ok(Ok(answer)) => match answer.result.error_text {
                    None => Navigated::Loaded,
                    Some(error) => Navigated::Failed {
                        error,
                        loader: answer.result.loader_id.map(|id| id.inner().clone()),
                    },
                },
                // chromiumoxide's own time limit on the request is the same wait as ours.
                Ok(Err(chromiumoxide::error::CdpError::Timeout)) | Err(_) => {
                    Navigated::StillLoading
                }
                Ok(Err(e)) => return Err(super::DriverError::call(what, e)),
            })
        })?;
        match navigated {
            Navigated::Loaded => Ok(()),
            Navigated::Failed { error, loader } => {
                match loader.and_then(|id| self.document_status(&id)) {
                    Some(status) if status >= FIRST_ERROR_STATUS => Err(error_status(url, status)),
                    _ if opened == Opened::Before
                        && CONNECTION_ERRORS.iter().any(|e| error.starts_with(e)) =>
                    {
                        Err(unreachable(url, &error))
                    }
                    _ => Err(not_loaded(url, &error)),
                }
            }
            // The server answered and the page is slow to finish: the wait for the composer
            // decides.
            Navigated::StillLoading if self.documents.lock().is_ok_and(|d| !d.is_empty()) => Ok(()),
            Navigated::StillLoading => {
                let error = format!("no answer within {} s", CDP_TIMEOUT.as_secs());
                Err(match opened {
                    Opened::Before => unreachable(url, &error),
                    Opened::First => not_loaded(url, &error),
                })
            }
        }
    }

    /// The HTTP status the document a navigation loaded had, by its loader.
    fn document_status(&self, loader: &str) -> Option<u16> {
        let documents = self.documents.lock().ok()?;
        documents
            .iter()
            .rev()
            .find(|(id, _)| id == loader)
            .map(|(_, status)| *status)
    }
}

/// The HTTP status of the document the page shows and its address, when the status is an
/// error; `None` for a success, or a document with no status (a local file, an error page of
/// the browser's).
pub(super) fn shown_error(page: &PageApi<'_>) -> Option<(u16, String)> {
    let (status, url) = page.shown_status().ok()?;
    (status >= FIRST_ERROR_STATUS).then_some((status, url))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_known_network_error_says_what_it_means() {
        let failure = not_loaded("http://127.0.0.1:1/", "net::ERR_CONNECTION_REFUSED");
        assert_eq!(failure.code, Code::PageNotLoaded);
        assert!(
            failure.reason.contains("http://127.0.0.1:1/"),
            "{failure:?}"
        );
        assert!(failure.reason.contains("nothing answers"), "{failure:?}");
        let failure = not_loaded("https://x.invalid/", "net::ERR_CERT_AUTHORITY_INVALID");
        assert!(failure.reason.contains("certificate"), "{failure:?}");
        let failure = not_loaded("https://x/", "net::ERR_SOMETHING_NEW");
        assert!(
            failure.reason.contains("(net::ERR_SOMETHING_NEW)."),
            "{failure:?}"
        );
    }
}
